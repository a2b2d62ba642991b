//go:build unix

package layoutcheck

import (
	"io/fs"
	"syscall"
)

// linkCount returns the number of hard links of a file; 1 when the
// platform does not say.
func linkCount(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}
