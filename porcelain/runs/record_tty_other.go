//go:build !linux

package runs

import "os"

// foregroundOf reports false where tine does not query terminals: the
// command always gets its own process group.
func foregroundOf(*os.File) bool { return false }
