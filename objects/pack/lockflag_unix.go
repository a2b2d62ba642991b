//go:build unix

package pack

import "syscall"

// noFollowFlag makes opening the lock file refuse a symlink.
const noFollowFlag = syscall.O_NOFOLLOW
