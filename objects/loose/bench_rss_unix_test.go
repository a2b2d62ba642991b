//go:build unix

package loose

import (
	"runtime"
	"syscall"
)

// peakRSSMiB returns the process's peak resident memory in MiB.
func peakRSSMiB() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return float64(ru.Maxrss) / (1 << 20), true // bytes there
	}
	return float64(ru.Maxrss) / (1 << 10), true // KiB elsewhere
}
