//go:build unix

package fsutil

import "syscall"

// nonBlock makes an open of a FIFO return at once instead of waiting for
// a writer.
const nonBlock = syscall.O_NONBLOCK

// NoFollow makes an open fail on a final symlink (O_NOFOLLOW), for a
// caller that opens a file by path through another package (a lock file
// opened by flock).
const NoFollow = syscall.O_NOFOLLOW
