package plumbing

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/tinehq/tine/objects"
)

// putLoopShape stores what a loop that forks every step leaves: a chain of
// n events and n runs, the k-th listing the first k events, so the runs
// list n²/2 event oids between them (40 MB of bodies at n = 1,000) while
// the storage pack keeps each run as a delta on the one before. It
// returns the runs.
func putLoopShape(t testing.TB, r *Repo, n int) []objects.OID {
	t.Helper()
	var batch []*objects.Object
	var evs, runs []objects.OID
	for i := range n {
		ev := jsonObject(t, r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","label":"step %d","parent_ids":%s}`, i, oidList(evs[max(0, len(evs)-1):])))
		evs = append(evs, ev.ID)
		run := chainRun(t, r.Algo(), evs)
		batch = append(batch, ev, run)
		runs = append(runs, run.ID)
	}
	if err := objects.PutAll(context.Background(), r.Objects(), batch); err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestFsckKeepsRunSummaries: fsck reads every object before it checks any
// link, and once kept every run decoded until then (133 MiB live for
// 1,000 runs listing 500,500 event oids). It keeps a run's id and its
// lists as numbers now (under 5 MiB live, most of it the 1,000 decoded
// events). The figure is live heap after a collection once every object
// is read, less the heap before fsck began; not a time.
func TestFsckKeepsRunSummaries(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 1,000 runs of up to 1,000 events")
	}
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	runs := putLoopShape(t, r, 1000)
	before := fsckLiveHeap()
	var held int64
	res, err := Fsck(ctx, r, FsckOptions{Progress: func(p GCProgress) {
		if p.Phase == "checking event graph" { // every object read, none checked yet
			held = fsckLiveHeap() - before
		}
	}})
	if err != nil || !res.OK() || res.ByType[objects.TypeRun] != len(runs) {
		t.Fatalf("fsck: %+v, %v", res, err)
	}
	if held == 0 || held > 32<<20 {
		t.Fatalf("fsck holds %d MiB once every object is read, want under 32 MiB", held>>20)
	}
	t.Logf("fsck holds %d KiB once every object is read", held>>10)
}

// fsckLiveHeap is the heap in use after a full collection.
func fsckLiveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
