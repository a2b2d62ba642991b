//go:build !unix

package pack

// noFollowFlag is 0 where O_NOFOLLOW does not exist.
const noFollowFlag = 0
