//go:build unix

package plumbing

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time so far, the figure to
// trust on a shared machine where wall time includes other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
