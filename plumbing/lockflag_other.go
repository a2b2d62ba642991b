//go:build !unix

package plumbing

// noFollowFlag is 0 where O_NOFOLLOW does not exist.
const noFollowFlag = 0
