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
	p, err := checkPathCreating(dir, rel)
	if err != nil {
		return err
	}
	return WriteFileAtomic(p, data, perm)
}

// CreateFileAtomicNoSymlinks is CreateFileAtomic for the file rel under
// dir, with the checks of WriteFileAtomicNoSymlinks: an existing rel is
// never replaced (a symlink is refused with ErrSymlink).
func CreateFileAtomicNoSymlinks(dir, rel string, data []byte, perm os.FileMode) error {
	p, err := checkPathCreating(dir, rel)
	if err != nil {
		return err
	}
	return CreateFileAtomic(p, data, perm)
}

// EnsureFileNoSymlinks makes sure the regular file rel exists under dir,
// creating it empty with perm (and its missing directories), with the
// checks of WriteFileAtomicNoSymlinks.
func EnsureFileNoSymlinks(dir, rel string, perm os.FileMode) error {
	p, err := checkPathCreating(dir, rel)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|os.O_CREATE, perm)
	if err != nil {
		return fmt.Errorf("path %q: %w", rel, err)
	}
	return f.Close()
}

// checkPathCreating returns the path of rel under dir after checking each
// of its components with Lstat, creating the missing directories: a
// symlink is refused with ErrSymlink, an existing last component that is
// not a regular file with ErrNotRegular.
func checkPathCreating(dir, rel string) (string, error) {
	parts, err := splitLocal(rel)
	if err != nil {
		return "", err
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
				return "", fmt.Errorf("path %q: %w", rel, err)
			}
			continue
		}
		if err != nil {
			return "", fmt.Errorf("path %q: %w", rel, err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return "", fmt.Errorf("path %q: %s: %w", rel, filepath.ToSlash(filepath.Join(parts[:i+1]...)), ErrSymlink)
		case last && !fi.Mode().IsRegular():
			return "", fmt.Errorf("path %q: %w (%s)", rel, ErrNotRegular, kindOf(fi.Mode()))
		case !last && !fi.IsDir():
			return "", fmt.Errorf("path %q: %s: not a directory", rel, filepath.ToSlash(filepath.Join(parts[:i+1]...)))
		}
	}
	return cur, nil
}
