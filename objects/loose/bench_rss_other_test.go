//go:build !unix

package loose

// peakRSSMiB is not measured where getrusage is missing.
func peakRSSMiB() (float64, bool) { return 0, false }
