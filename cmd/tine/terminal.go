package main

import "os"

// isTerminal reports whether f is a terminal, asking the terminal driver
// (as isatty does) where the system allows rather than trusting the file
// type: /dev/null is a character device too, and `tine log >/dev/null`
// must neither start $PAGER nor colour its output.
func isTerminal(f *os.File) bool {
	return f != nil && isTerminalFile(f)
}
