//go:build !unix

package pack

// reserveArena allocates the arena on the Go heap where anonymous mappings
// are not available; large allocations are zero pages until written.
func reserveArena(size int) ([]byte, func() error, error) {
	return make([]byte, size), func() error { return nil }, nil
}
