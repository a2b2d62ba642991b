//go:build !linux

package fsutil

import (
	"errors"
	"os"
)

// DirectAlign is the alignment direct I/O needs; without it (see
// SetDirect) buffers need none, and 4096 keeps block sizes equal.
const DirectAlign = 4096

// errNoDirect is what SetDirect reports where direct I/O is not used.
var errNoDirect = errors.New("direct i/o is used on Linux only")

// SetDirect would turn direct I/O on for writes through f; outside Linux
// tine writes through the page cache, so turning it on is refused (and
// turning it off is a no-op).
func SetDirect(f *os.File, on bool) error {
	if on {
		return errNoDirect
	}
	return nil
}

// AlignedBuffer returns n bytes (rounded up to DirectAlign) and a no-op
// release: without direct I/O no alignment is needed.
func AlignedBuffer(n int) ([]byte, func(), error) {
	n = (n + DirectAlign - 1) / DirectAlign * DirectAlign
	return make([]byte, n), func() {}, nil
}
