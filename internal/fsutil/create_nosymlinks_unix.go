//go:build unix

package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CreateFileAtomicNoSymlinks is CreateFileAtomic for the file rel (a
// relative slash path) under dir, creating the missing directories of rel
// and following no symlink at any component of rel, as
// WriteFileAtomicNoSymlinks does. An existing rel is never replaced: a
// symlink there is refused with ErrSymlink, anything else with an error
// wrapping fs.ErrExist. The temporary file is hard-linked to rel relative
// to the directory already held (linkat fails on any existing name, a
// dangling link included), so nothing outside dir is created or written.
func CreateFileAtomicNoSymlinks(dir, rel string, data []byte, perm os.FileMode) error {
	fd, name, err := openParentCreating(dir, rel)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tmp, err := writeTempBeside(fd, name, rel, data, perm)
	if err != nil {
		return err
	}
	err = unix.Linkat(fd, tmp, fd, name, 0)
	unix.Unlinkat(fd, tmp, 0)
	if errors.Is(err, unix.EEXIST) {
		if cerr := checkTarget(fd, name); errors.Is(cerr, ErrSymlink) {
			return fmt.Errorf("path %q: %w", rel, ErrSymlink)
		}
		return fmt.Errorf("path %q: %w", rel, fs.ErrExist)
	}
	if err != nil {
		return fmt.Errorf("path %q: %w", rel, err)
	}
	if err := unix.Fsync(fd); err != nil {
		return &UnknownStateError{Path: filepath.Join(dir, filepath.FromSlash(rel)), Err: err}
	}
	return nil
}

// EnsureFileNoSymlinks makes sure the regular file rel (a relative slash
// path) exists under dir, creating it empty with perm, and its missing
// directories, when it does not, and following no symlink at any
// component of rel: a symlink is refused with ErrSymlink (a dangling one's
// target is not created), anything but a regular file with ErrNotRegular.
// It is for a lock file, which a caller then opens by path with NoFollow
// and no O_CREATE, so that open creates nothing either. The new file's
// directory entry is not fsynced: a lock file holds nothing.
func EnsureFileNoSymlinks(dir, rel string, perm os.FileMode) error {
	fd, name, err := openParentCreating(dir, rel)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	const flags = unix.O_RDONLY | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	var ffd int
	for {
		ffd, err = unix.Openat(fd, name, flags, uint32(perm.Perm()))
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.EISDIR) {
		return fmt.Errorf("path %q: %w (a directory)", rel, ErrNotRegular)
	}
	if err != nil {
		return fmt.Errorf("path %q: %w", rel, componentError(fd, name, err))
	}
	defer unix.Close(ffd)
	var st unix.Stat_t
	if err := unix.Fstat(ffd, &st); err != nil {
		return fmt.Errorf("path %q: %w", rel, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("path %q: %w", rel, ErrNotRegular)
	}
	return nil
}
