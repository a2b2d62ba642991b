//go:build unix

package fsutil

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenNoSymlinks opens the file rel (a relative slash path) under dir for
// reading without following a symlink at any component of rel. dir itself
// is trusted and may be reached through links.
//
// A check of each component followed by an open of the whole path races:
// a component swapped for a symlink between the two is followed. Instead
// each component is opened relative to the directory already held, with
// O_NOFOLLOW (and O_DIRECTORY for all but the last), so what is opened is
// what was checked. The last component is opened O_NONBLOCK so a FIFO
// cannot block the open; callers check what they got (ReadRegular).
func OpenNoSymlinks(dir, rel string) (*os.File, error) {
	parts, err := splitLocal(rel)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	for i, p := range parts {
		last := i == len(parts)-1
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if last {
			flags |= unix.O_NONBLOCK
		} else {
			flags |= unix.O_DIRECTORY
		}
		next, err := openatRetry(fd, p, flags)
		if err != nil {
			err = componentError(fd, p, err)
			unix.Close(fd)
			return nil, fmt.Errorf("path %q: %s: %w", rel, strings.Join(parts[:i+1], "/"), err)
		}
		unix.Close(fd)
		fd = next
	}
	return os.NewFile(uintptr(fd), dir+string(os.PathSeparator)+rel), nil
}

// openatRetry is openat, retried on EINTR.
func openatRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// componentError names why component name of dirfd could not be opened:
// a symlink (ELOOP from O_NOFOLLOW, or ENOTDIR where a directory was
// wanted) is reported as ErrSymlink, whatever errno the system chose.
func componentError(dirfd int, name string, err error) error {
	var st unix.Stat_t
	if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return ErrSymlink
	}
	if errors.Is(err, unix.ELOOP) {
		return ErrSymlink
	}
	if errors.Is(err, unix.ENOTDIR) {
		return errors.New("not a directory")
	}
	return err
}
