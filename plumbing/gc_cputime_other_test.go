//go:build !unix

package plumbing

import "time"

// cpuTime is unknown here; timings then report wall time only.
func cpuTime() time.Duration { return 0 }
