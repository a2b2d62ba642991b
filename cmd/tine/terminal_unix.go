//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminalFile reports whether f is a terminal: only a terminal driver
// answers the get-attributes ioctl. SyscallConn, unlike Fd, leaves the
// file's blocking mode alone.
func isTerminalFile(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	term := false
	if err := rc.Control(func(fd uintptr) {
		_, ierr := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
		term = ierr == nil
	}); err != nil {
		return false
	}
	return term
}
