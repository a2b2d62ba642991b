package loops

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// A loaded loop keeps summaries, not runs: a 1,000-iteration loop that
// forks every step (1,000 branch runs averaging ~500 event oids each)
// once held every run's decoded payload and every event (over 200 MiB
// live, 6.7 GB for log --all before that was fixed); what loadLoop keeps
// must stay a few MiB. The figure is live heap after a collection, not a
// time.
func TestLoadLoopKeepsSummariesOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("records a 1,000-iteration loop")
	}
	ctx := context.Background()
	r, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	target := 1e6
	opt := LoopRunOptions{Name: "k", Strategy: LoopStrategyNumeric, Target: &target, Width: 2, MaxSteps: 1000,
		Now: runstest.FakeClock(time.Unix(1_700_000_000, 0), time.Millisecond)}
	if _, err := LoopRun(ctx, r, opt); err != nil {
		t.Fatal(err)
	}
	d, err := loadLoop(ctx, r.Objects(), r.Refs(), "k", "alt-b1000")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.branches) != 1000 || !d.trailFound {
		t.Fatalf("loaded %d branches (trail %v), want 1000", len(d.branches), d.trailFound)
	}
	// What the store caches is not the loop's: measure d alone.
	with := liveHeap()
	runtime.KeepAlive(d)
	d = nil
	kept := with - liveHeap()
	if kept > 32<<20 {
		t.Fatalf("a loaded loop keeps %d MiB live, want under 32 MiB", kept>>20)
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
