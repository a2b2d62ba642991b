//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// endBy ends tine by sig, as git does after its cleanup: the default
// action restored, the signal raised on itself. A shell tells a command a
// signal ended from one that merely exited 128+N, and only the first
// stops a loop (`for ...; do tine ...; done`) on Ctrl-C. It returns only
// where that cannot be done (a signal tine was started ignoring); the
// caller then exits 128+N.
func endBy(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok || ignoredAtStart(sig) {
		return
	}
	// With no Notify left, the runtime's handler takes the default
	// action for SIGINT, SIGTERM and SIGHUP: it ends the process by the
	// signal.
	signal.Reset(s)
	if err := syscall.Kill(os.Getpid(), s); err != nil {
		return
	}
	// The signal may land on another thread a moment later; wait for it
	// rather than race it with the fallback exit.
	time.Sleep(5 * time.Second)
}
