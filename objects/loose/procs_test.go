package loose

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRaiseProcsNestsAndRestores: concurrent streams raise GOMAXPROCS
// once, and it is back where it was when the last one ends.
func TestRaiseProcsNestsAndRestores(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	first := raiseProcs(2)
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("GOMAXPROCS while one stream runs = %d, want %d", got, base+2)
	}
	second := raiseProcs(2)
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("GOMAXPROCS while two streams run = %d, want %d", got, base+2)
	}
	first()
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("GOMAXPROCS after the first of two streams ended = %d, want %d", got, base+2)
	}
	second()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS after both streams ended = %d, want %d", got, base)
	}
}

// TestPutBlobFromRestoresProcs: storing a large blob, and failing to,
// leaves GOMAXPROCS as it found it.
func TestPutBlobFromRestoresProcs(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	s, err := Open(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)
	if _, err := s.PutBlobFrom(context.Background(), bytes.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS after a stored blob = %d, want %d", got, base)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.PutBlobFrom(ctx, bytes.NewReader(content)); err == nil {
		t.Fatal("PutBlobFrom with a cancelled context succeeded")
	}
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS after a failed blob = %d, want %d", got, base)
	}
}
