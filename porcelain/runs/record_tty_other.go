//go:build !linux

package porcelain

import "os"

// foregroundOf reports false where tine does not query terminals: the
// command always gets its own process group.
func foregroundOf(*os.File) bool { return false }
