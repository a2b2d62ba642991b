//go:build !unix

package refs

import (
	"fmt"
	"os"
)

// openNoFollow opens path for reading after checking, with Lstat, that it
// is not a symlink (SPEC §2.3). Without O_NOFOLLOW a swap between the two
// calls is possible; the repository is assumed not to be shared with an
// adversary on such systems.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: %w (symlink)", path, ErrNotRegular)
	}
	return os.Open(path)
}

// linkCount is unknown on this platform.
func linkCount(fi os.FileInfo) (uint64, bool) { return 0, false }

// noFollowFlag is unavailable here; writers rely on checkRegular after the
// open instead.
const noFollowFlag = 0

// guardPerm is the mode of the guards tine creates. Here a read-only file
// could not be removed, so guards are writable and ownGuard cannot tell
// tine's from a foreign writer's.
const guardPerm = 0o644

// ownGuard reports every guard as tine's: see guardPerm.
func ownGuard(os.FileInfo) bool { return true }

// removeFile removes the file path.
func removeFile(path string) error { return os.Remove(path) }

// removeDir removes the empty directory path.
func removeDir(path string) error { return os.Remove(path) }
