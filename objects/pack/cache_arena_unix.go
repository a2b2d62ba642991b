//go:build unix

package pack

import "syscall"

// reserveArena maps size bytes of anonymous memory outside the Go heap: the
// kernel provides a page when it is first written, so an arena costs only
// what the cache fills, and the garbage collector neither scans it nor
// counts it when it decides how much garbage to let grow (a 256 MiB cache
// on the heap would let the heap grow to twice that before collecting).
func reserveArena(size int) ([]byte, func() error, error) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
