//go:build linux

package fsutil

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// DirectAlign is the alignment direct I/O needs of a write's offset,
// length and memory: 4096 covers the logical block size of the disks and
// file systems Linux writes to.
const DirectAlign = 4096

// SetDirect turns direct I/O on or off for writes through f (O_DIRECT:
// data goes from the caller's memory to the disk without being copied
// into, and later written back from, the page cache). A file system that
// does not offer it refuses with an error; the caller then writes through
// the page cache. Direct I/O does not make a write durable: an fsync is
// still needed for the disk's cache and the file's metadata.
func SetDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil {
			serr = err
			return
		}
		if on {
			flags |= unix.O_DIRECT
		} else {
			flags &^= unix.O_DIRECT
		}
		_, serr = unix.FcntlInt(fd, unix.F_SETFL, flags)
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("direct i/o on %s: %w", f.Name(), err)
	}
	return nil
}

// AlignedBuffer returns n bytes of memory aligned to DirectAlign (n is
// rounded up to a multiple of it) for direct writes, and the function that
// releases it. The memory is mapped outside Go's heap, so it is page
// aligned without relying on how the allocator places large slices. It is
// populated when mapped (MAP_POPULATE): one system call instead of a page
// fault per 4 KiB page at first touch (issue 13: a fault costs
// microseconds in a VM, and the large-file writer's blocks took thousands).
func AlignedBuffer(n int) ([]byte, func(), error) {
	n = (n + DirectAlign - 1) / DirectAlign * DirectAlign
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, fmt.Errorf("map %d bytes: %w", n, err)
	}
	return b, func() { _ = unix.Munmap(b) }, nil
}
