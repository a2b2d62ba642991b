//go:build unix

package plumbing

import "syscall"

// noFollowFlag makes opening a lock file refuse a symlink (SPEC §2.1 path
// confinement).
const noFollowFlag = syscall.O_NOFOLLOW
