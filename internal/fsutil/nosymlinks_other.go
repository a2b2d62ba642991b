//go:build !unix

package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// OpenNoSymlinks opens the file rel (a relative slash path) under dir for
// reading, refusing a symlink at any component of rel. Without openat and
// O_NOFOLLOW each component is checked with Lstat and the opened file is
// compared with the checked one (os.SameFile), which catches a swap of the
// last component; a swap of an intermediate directory is not caught, so on
// such systems dir must not be shared with an adversary.
func OpenNoSymlinks(dir, rel string) (*os.File, error) {
	parts, err := splitLocal(rel)
	if err != nil {
		return nil, err
	}
	cur := dir
	var last os.FileInfo
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil, fmt.Errorf("path %q: %w", rel, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("path %q: %s: %w", rel, filepath.ToSlash(filepath.Join(parts[:i+1]...)), ErrSymlink)
		}
		last = fi
	}
	if !last.Mode().IsRegular() {
		return nil, fmt.Errorf("path %q: %w (%s)", rel, ErrNotRegular, kindOf(last.Mode()))
	}
	f, err := os.Open(cur)
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", rel, err)
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, last) {
		f.Close()
		return nil, fmt.Errorf("path %q: changed while it was opened: %w", rel, ErrSymlink)
	}
	return f, nil
}
