//go:build unix

package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// RemoveNoSymlinks removes the regular file rel (a relative slash path)
// under dir, following no symlink at any component of rel, and makes the
// removal durable (an fsync of the directory that held it). dir itself is
// trusted and may be reached through links. A symlink at any component is
// refused with ErrSymlink, anything but a regular file with ErrNotRegular;
// a missing file satisfies errors.Is(err, fs.ErrNotExist).
//
// As OpenNoSymlinks does, each directory is opened relative to the one
// already held, O_NOFOLLOW, and the file is checked and unlinked relative
// to the last, so a component swapped for a symlink meanwhile is never
// followed.
func RemoveNoSymlinks(dir, rel string) error {
	parts, err := splitLocal(rel)
	if err != nil {
		return err
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer func() { unix.Close(fd) }()
	for i, p := range parts[:len(parts)-1] {
		next, err := openatRetry(fd, p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC)
		if err != nil {
			return fmt.Errorf("path %q: %s: %w", rel, strings.Join(parts[:i+1], "/"), componentError(fd, p, err))
		}
		unix.Close(fd)
		fd = next
	}
	name := parts[len(parts)-1]
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "remove", Path: rel, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFLNK:
		return fmt.Errorf("path %q: %w", rel, ErrSymlink)
	default:
		return fmt.Errorf("path %q: %w", rel, ErrNotRegular)
	}
	if err := unix.Unlinkat(fd, name, 0); err != nil {
		return &os.PathError{Op: "remove", Path: rel, Err: err}
	}
	if err := unix.Fsync(fd); err != nil {
		return &UnknownStateError{Path: filepath.Join(dir, filepath.FromSlash(rel)), Err: err}
	}
	return nil
}
