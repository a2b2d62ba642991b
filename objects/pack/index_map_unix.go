//go:build unix

package pack

import (
	"fmt"
	"syscall"
)

// mapSPIndexFile maps an index file read-only after the path confinement
// checks, so a lookup touches the pages it searches, not the whole file.
// Index files are never modified in place (written to a temporary file,
// renamed, replaced only by another rename), so the mapping stays the
// bytes that were checked; an unlinked index stays mapped until closed.
func mapSPIndexFile(path string) ([]byte, func() error, error) {
	f, size, err := openPlain(path)
	if err != nil {
		return nil, nil, fmt.Errorf("storage pack index %s: %w", path, err)
	}
	defer f.Close()
	if size < spIndexOverhead || size > MaxIndexBytes {
		return nil, nil, corruptFile(path, fmt.Errorf("%d bytes is not an index's size", size))
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("storage pack index %s: map: %w", path, err)
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
