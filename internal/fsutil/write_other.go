//go:build !unix

package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomicNoSymlinks is WriteFileAtomic for the file rel (a
// relative slash path) under dir, creating the missing directories of rel,
// refusing a symlink at any component of rel (ErrSymlink) and an existing
// rel that is not a regular file (ErrNotRegular). Without openat each
// component is checked with Lstat before the write, so, as for
// OpenNoSymlinks on such systems, dir must not be shared with an
// adversary.
func WriteFileAtomicNoSymlinks(dir, rel string, data []byte, perm os.FileMode) error {
	parts, err := splitLocal(rel)
	if err != nil {
		return err
	}
	cur := dir
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		last := i == len(parts)-1
		fi, err := os.Lstat(cur)
		if os.IsNotExist(err) {
			if last {
				break
			}
			if err := MkdirAllSync(cur, 0o755); err != nil {
				return fmt.Errorf("path %q: %w", rel, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("path %q: %w", rel, err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("path %q: %s: %w", rel, filepath.ToSlash(filepath.Join(parts[:i+1]...)), ErrSymlink)
		case last && !fi.Mode().IsRegular():
			return fmt.Errorf("path %q: %w (%s)", rel, ErrNotRegular, kindOf(fi.Mode()))
		case !last && !fi.IsDir():
			return fmt.Errorf("path %q: %s: not a directory", rel, filepath.ToSlash(filepath.Join(parts[:i+1]...)))
		}
	}
	return WriteFileAtomic(cur, data, perm)
}
