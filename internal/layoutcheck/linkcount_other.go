//go:build !unix

package layoutcheck

import "io/fs"

// linkCount returns 1: this platform exposes no link count through
// fs.FileInfo, so hard links cannot be detected here.
func linkCount(fs.FileInfo) uint64 { return 1 }
