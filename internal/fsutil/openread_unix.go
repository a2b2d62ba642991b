//go:build unix

package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openRead opens path for reading without blocking on a FIFO and, with
// noFollow, without following a final symlink (O_NOFOLLOW fails with ELOOP).
func openRead(path string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if noFollow && errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s: %w", path, ErrSymlink)
	}
	return f, err
}

// linkCount returns fi's hard-link count.
func linkCount(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}
