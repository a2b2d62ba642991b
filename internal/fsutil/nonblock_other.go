//go:build !unix

package fsutil

// nonBlock is 0 where FIFOs cannot be opened by path as files.
const nonBlock = 0

// NoFollow is 0 where open has no O_NOFOLLOW; such a caller checks the
// path with Lstat first.
const NoFollow = 0
