//go:build unix

package pack

import "syscall"

// lockOpenFlags make opening the lock file refuse a symlink and not block
// on a FIFO put in its place (flock's waiting is LOCK_NB's business, not
// O_NONBLOCK's).
const lockOpenFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
