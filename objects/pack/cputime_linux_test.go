//go:build linux

package pack

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// spThreadCPU returns the CPU time the calling thread has used. Benchmarks
// report it beside wall time because the shared development machines are
// often loaded, which inflates wall time but not CPU time.
func spThreadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// spMeasureCPU runs fn on a locked thread and reports its CPU time per op.
func spMeasureCPU(b *testing.B, ops int, fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := spThreadCPU()
	fn()
	b.ReportMetric(float64((spThreadCPU()-start).Nanoseconds())/float64(ops)/1000, "cpu-µs/op")
}
