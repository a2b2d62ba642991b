//go:build !unix

package pack

// lockOpenFlags is 0 where O_NOFOLLOW and O_NONBLOCK do not exist.
const lockOpenFlags = 0
