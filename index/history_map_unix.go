//go:build unix

package index

import (
	"fmt"
	"syscall"

	"github.com/tinehq/tine/internal/fsutil"
)

// mapHistFile maps a layer read-only: a lookup touches the pages it reads.
// Layers are never modified in place (written to a temporary file and
// renamed), so the mapping stays the bytes that were checked; a layer
// deleted by a merge stays mapped until closed.
func mapHistFile(dir, name string) ([]byte, func() error, error) {
	path := dir + "/" + name
	f, err := fsutil.OpenNoSymlinks(dir, name)
	if err != nil {
		return nil, nil, fmt.Errorf("history layer: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("history layer: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() < histHeaderSize || fi.Size() > maxHistLayerBytes {
		return nil, nil, fmt.Errorf("history layer %s: not a layer file (%s, %d bytes): %w", path, fi.Mode().Type(), fi.Size(), ErrHistoryCorrupt)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("history layer %s: map: %w", path, err)
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// noFollowLock makes the lock file's open fail on a symlink.
const noFollowLock = syscall.O_NOFOLLOW
