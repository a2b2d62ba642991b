//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import "golang.org/x/sys/unix"

// ioctlGetTermios reads a terminal's attributes on the BSDs and macOS.
const ioctlGetTermios = unix.TIOCGETA
