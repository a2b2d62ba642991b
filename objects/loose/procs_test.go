package loose

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/tinehq/tine/objects"
)

// procsReader reads r and notes GOMAXPROCS at every Read once more than
// two blocks have been read, when the writers are storing the first ones.
type procsReader struct {
	r    io.Reader
	n    int
	seen map[int]int // GOMAXPROCS value -> Reads that saw it
}

func (p *procsReader) Read(b []byte) (int, error) {
	if p.n > 2*blockSize {
		p.seen[runtime.GOMAXPROCS(0)]++
	}
	n, err := p.r.Read(b)
	p.n += n
	return n, err
}

// TestPutBlobFromLeavesProcsAlone: GOMAXPROCS is process-wide, so the
// library must not change it; streaming a large blob, which keeps
// StreamWriters goroutines blocked in writes, leaves it as it was while
// the stream runs (it was raised by the writer count here until the
// command layer took that over) and after it ends, stored or failed.
func TestPutBlobFromLeavesProcsAlone(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	s, err := Open(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 6*blockSize/16)
	in := &procsReader{r: bytes.NewReader(content), seen: map[int]int{}}
	if _, err := s.PutBlobFrom(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if len(in.seen) == 0 {
		t.Fatal("no Read after the first blocks were handed to the writers")
	}
	for procs, reads := range in.seen {
		if procs != base {
			t.Errorf("GOMAXPROCS during the stream = %d (%d reads), want %d", procs, reads, base)
		}
	}
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS after a stored blob = %d, want %d", got, base)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.PutBlobFrom(ctx, bytes.NewReader(content)); err == nil {
		t.Fatal("PutBlobFrom with a cancelled context succeeded")
	}
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS after a failed blob = %d, want %d", got, base)
	}
}
