//go:build !linux

package pack

import "testing"

// spMeasureCPU runs fn; thread CPU time is only measured on Linux.
func spMeasureCPU(b *testing.B, ops int, fn func()) { fn() }
