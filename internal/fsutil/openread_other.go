//go:build !unix

package fsutil

import (
	"fmt"
	"io/fs"
	"os"
)

// openRead opens path for reading. Without O_NOFOLLOW, noFollow checks the
// final component with Lstat first: a symlink swapped in between is the
// platform's limit.
func openRead(path string, noFollow bool) (*os.File, error) {
	if noFollow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %w", path, ErrSymlink)
		}
	}
	return os.Open(path)
}

// linkCount is unknown here.
func linkCount(fs.FileInfo) (uint64, bool) { return 0, false }
