//go:build !unix

package fsutil

// nonBlock is 0 where FIFOs cannot be opened by path as files.
const nonBlock = 0
