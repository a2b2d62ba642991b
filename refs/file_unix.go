//go:build unix

package refs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final symlink;
// a symlink fails with ELOOP (SPEC §2.3: symlinks are rejected). The open
// is non-blocking, so a FIFO is opened at once and refused by checkRegular
// instead of waiting for a writer forever.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s: %w (a symlink)", path, ErrNotRegular)
	}
	return f, err
}

// linkCount returns the number of hard links of a file.
func linkCount(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// noFollowFlag makes an open fail on a final symlink.
const noFollowFlag = syscall.O_NOFOLLOW

// guardPerm is the mode of the guards tine creates: no write bit, which
// no other writer's guard has (OpenTine creates its guards writable), so
// a guard nobody flocks is known to be a dead tine writer's.
const guardPerm = 0o444

// ownGuard reports whether a guard was created by tine (guardPerm). Only
// then does a free flock prove its writer dead; a foreign writer takes no
// flock.
func ownGuard(fi os.FileInfo) bool { return fi.Mode().Perm()&0o222 == 0 }

// removeFile unlinks the file path. os.Remove would also try rmdir when
// the unlink fails, a second failing system call for every file that is
// already gone.
func removeFile(path string) error {
	if err := syscall.Unlink(path); err != nil {
		return &os.PathError{Op: "unlink", Path: path, Err: err}
	}
	return nil
}

// removeDir removes the empty directory path, without trying unlink
// first as os.Remove does.
func removeDir(path string) error {
	if err := syscall.Rmdir(path); err != nil {
		return &os.PathError{Op: "rmdir", Path: path, Err: err}
	}
	return nil
}
