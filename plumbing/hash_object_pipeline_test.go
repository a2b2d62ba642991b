package plumbing

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPathReadersReadAheadAWholeBatch: while the collector is busy (here:
// not consuming at all, as while it compresses and writes a pack), the
// workers go on reading past a whole pack batch of inputs. With a few
// chunks per worker in the in-order queue they stopped after ~600.
func TestPathReadersReadAheadAWholeBatch(t *testing.T) {
	var list strings.Builder
	for i := range 3 * DefaultPackBulkObjects {
		fmt.Fprintf(&list, "f%06d\n", i)
	}
	var reads atomic.Int64
	p := startPathReaders(context.Background(), strings.NewReader(list.String()), 2,
		func(string, func(int64) bool) pathResult {
			reads.Add(1)
			return pathResult{}
		})
	defer p.stop()
	want := int64(DefaultPackBulkObjects + pathChunk)
	// A generous bound for a loaded machine; the reads take microseconds.
	for deadline := time.Now().Add(2 * time.Minute); reads.Load() < want; {
		if time.Now().After(deadline) {
			t.Fatalf("workers read %d inputs ahead of the collector, want at least %d", reads.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Bounded all the same: the queue holds orderedChunks chunks.
	time.Sleep(100 * time.Millisecond)
	if n, limit := reads.Load(), int64((orderedChunks+4*2+2*2)*pathChunk); n > limit {
		t.Errorf("workers read %d inputs ahead, more than the queue's %d", n, limit)
	}
}
