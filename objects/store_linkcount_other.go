//go:build !unix

package objects

import "io/fs"

// linkCount returns 1: this platform's FileInfo carries no link count, so
// the hard-link refusal of SPEC §2.1 is not enforced here.
func linkCount(fs.FileInfo) uint64 { return 1 }
