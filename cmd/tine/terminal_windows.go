//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// isTerminalFile reports whether f is a console: only a console handle
// has a console mode. NUL is a character device too, so the file type
// alone would colour `tine log > NUL` and start $PAGER for it.
func isTerminalFile(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
