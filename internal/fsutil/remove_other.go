//go:build !unix

package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// RemoveNoSymlinks removes the regular file rel (a relative slash path)
// under dir, refusing a symlink at any component of rel (ErrSymlink) and
// anything but a regular file (ErrNotRegular), and makes the removal
// durable. Without openat each component is checked with Lstat before the
// removal, so, as for OpenNoSymlinks on such systems, dir must not be
// shared with an adversary.
func RemoveNoSymlinks(dir, rel string) error {
	parts, err := splitLocal(rel)
	if err != nil {
		return err
	}
	cur := dir
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("path %q: %s: %w", rel, filepath.ToSlash(filepath.Join(parts[:i+1]...)), ErrSymlink)
		case i == len(parts)-1 && !fi.Mode().IsRegular():
			return fmt.Errorf("path %q: %w (%s)", rel, ErrNotRegular, kindOf(fi.Mode()))
		}
	}
	if err := os.Remove(cur); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(cur)); err != nil {
		return &UnknownStateError{Path: cur, Err: err}
	}
	return nil
}
