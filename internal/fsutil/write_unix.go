//go:build unix

package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// WriteFileAtomicNoSymlinks is WriteFileAtomic for the file rel (a
// relative slash path) under dir, creating the missing directories of rel
// (each made durable), and following no symlink at any component of rel.
// dir itself is trusted and may be reached through links. A symlink at
// any component is refused with ErrSymlink, and an existing rel that is
// not a regular file with ErrNotRegular; nothing is written then.
//
// As RemoveNoSymlinks does, each directory is opened relative to the one
// already held, O_NOFOLLOW, and the temporary file is created, and renamed
// over rel, relative to the last: a component swapped for a symlink
// meanwhile is never followed, so nothing outside dir is written. (A
// rename never follows its target: a link put at rel after the check is
// replaced, not written through.)
func WriteFileAtomicNoSymlinks(dir, rel string, data []byte, perm os.FileMode) error {
	fd, name, err := openParentCreating(dir, rel)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tmp, err := writeTempBeside(fd, name, rel, data, perm)
	if err != nil {
		return err
	}
	// Checked again just before the rename: the window left is the
	// rename itself, which replaces a link rather than follow it.
	err = checkTarget(fd, name)
	if err == nil {
		err = unix.Renameat(fd, tmp, fd, name)
	}
	if err != nil {
		unix.Unlinkat(fd, tmp, 0)
		return fmt.Errorf("path %q: %w", rel, err)
	}
	if err := unix.Fsync(fd); err != nil {
		return &UnknownStateError{Path: filepath.Join(dir, filepath.FromSlash(rel)), Err: err}
	}
	return nil
}

// writeTempBeside checks that name in dirfd is absent or a regular file
// (checkTarget), then writes data with perm to a new fsynced temporary
// file beside it and returns that file's name; on failure nothing is
// left. rel names the file in errors.
func writeTempBeside(dirfd int, name, rel string, data []byte, perm os.FileMode) (string, error) {
	if err := checkTarget(dirfd, name); err != nil {
		return "", fmt.Errorf("path %q: %w", rel, err)
	}
	tmp, f, err := createTempAt(dirfd, name)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", rel, err)
	}
	err = writeSync(f, data, perm)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return "", fmt.Errorf("path %q: %w", rel, err)
	}
	return tmp, nil
}

// openParentCreating opens the directory holding the last component of
// rel (a relative slash path) under dir, creating the missing directories
// on the way (openDirCreating) and following no symlink below dir. It
// returns that directory's descriptor, which the caller closes, and the
// last component.
func openParentCreating(dir, rel string) (int, string, error) {
	parts, err := splitLocal(rel)
	if err != nil {
		return -1, "", err
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", &os.PathError{Op: "open", Path: dir, Err: err}
	}
	for i, p := range parts[:len(parts)-1] {
		next, err := openDirCreating(fd, p)
		unix.Close(fd)
		if err != nil {
			return -1, "", fmt.Errorf("path %q: %s: %w", rel, strings.Join(parts[:i+1], "/"), err)
		}
		fd = next
	}
	return fd, parts[len(parts)-1], nil
}

// openDirCreating opens the directory name of dirfd without following a
// symlink, creating it (and making its entry durable) when it is missing.
func openDirCreating(dirfd int, name string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_DIRECTORY | unix.O_CLOEXEC
	next, err := openatRetry(dirfd, name, flags)
	if errors.Is(err, unix.ENOENT) {
		if err := unix.Mkdirat(dirfd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		if err := unix.Fsync(dirfd); err != nil {
			return -1, err
		}
		next, err = openatRetry(dirfd, name, flags)
	}
	if err != nil {
		return -1, componentError(dirfd, name, err)
	}
	return next, nil
}

// checkTarget refuses name in dirfd when it exists and is not a regular
// file: a symlink (ErrSymlink) or anything else (ErrNotRegular).
func checkTarget(dirfd int, name string) error {
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return err
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return ErrSymlink
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return ErrNotRegular
	}
	return nil
}

// createTempAt creates a new temporary file next to name in dirfd,
// refusing to reuse any existing name (O_EXCL, O_NOFOLLOW).
func createTempAt(dirfd int, name string) (string, *os.File, error) {
	for range 16 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		tmp := ".tmp-" + name + "-" + hex.EncodeToString(b[:])
		fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return tmp, os.NewFile(uintptr(fd), tmp), nil
	}
	return "", nil, errors.New("no free temporary file name")
}

// writeSync writes data to f, sets its permissions and fsyncs it.
func writeSync(f *os.File, data []byte, perm os.FileMode) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	return f.Sync()
}
