package refs

import (
	"bytes"
	"testing"
)

// TestGetrandomReaderFillsDistinctIDs: the default id source fills every
// byte asked for and two reads differ.
func TestGetrandomReaderFillsDistinctIDs(t *testing.T) {
	var a, b [64]byte
	for _, p := range [][]byte{a[:], b[:]} {
		if n, err := txnRand.Read(p); n != len(p) || err != nil {
			t.Fatalf("Read: %d, %v; want %d, nil", n, err, len(p))
		}
	}
	if bytes.Equal(a[:], b[:]) || bytes.Equal(a[:], make([]byte, 64)) {
		t.Fatalf("two reads gave %x and %x", a, b)
	}
}
