//go:build unix

package refs

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final symlink;
// a symlink fails with ELOOP (SPEC §2.3: symlinks are rejected).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
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
