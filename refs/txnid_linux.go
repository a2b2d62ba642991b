package refs

import (
	"crypto/rand"
	"io"

	"golang.org/x/sys/unix"
)

// txnRand is the default source of transaction ids: the getrandom system
// call itself. crypto/rand's first read in a process sets up the vDSO's
// per-thread random state (an mmap and its page faults) and a timer, about
// 0.5% of a single `update-ref` process, which reads 16 bytes once.
var txnRand io.Reader = getrandomReader{}

// getrandomReader reads getrandom(2), blocking until the kernel's pool is
// initialised like crypto/rand; any failure falls back to crypto/rand.
type getrandomReader struct{}

// Read fills b from getrandom(2), else from crypto/rand.
func (getrandomReader) Read(b []byte) (int, error) {
	for n := 0; n < len(b); {
		m, err := unix.Getrandom(b[n:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			k, err := io.ReadFull(rand.Reader, b[n:])
			return n + k, err
		}
		n += m
	}
	return len(b), nil
}
