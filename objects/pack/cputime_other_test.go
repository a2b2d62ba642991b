//go:build !linux

package pack

import (
	"testing"
	"time"
)

// spMeasureCPU runs fn; thread CPU time is only measured on Linux.
func spMeasureCPU(b *testing.B, ops int, fn func()) { fn() }

// spThreadCPU is zero where the thread's CPU time is not read, so the
// benchmarks that report cpu-µs/op report 0 there.
func spThreadCPU() time.Duration { return 0 }
