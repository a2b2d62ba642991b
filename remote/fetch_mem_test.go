package remote_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// loopShape stores in r what a loop that forks every step leaves: a chain
// of n events and n runs, the k-th listing the first k events, so the runs
// list n²/2 event oids between them (40 MB of bodies at n = 1,000) while
// the storage pack keeps each run as a delta on the one before. It
// returns the runs.
func loopShape(t *testing.T, r *plumbing.Repo, n int) []objects.OID {
	t.Helper()
	list := func(ids []objects.OID) objects.Value {
		vs := make([]objects.Value, len(ids))
		for i, id := range ids {
			vs[i] = objects.String(id.String())
		}
		return objects.Array(vs...)
	}
	var batch []*objects.Object
	var evs, runs []objects.OID
	for i := range n {
		ev, err := objects.NewJSONObject(r.Algo(), objects.TypeEvent, 1, objects.ObjectValue(
			objects.Member{Key: "kind", Value: objects.String("tool")},
			objects.Member{Key: "label", Value: objects.String(fmt.Sprint("step ", i))},
			objects.Member{Key: "parent_ids", Value: list(evs[max(0, len(evs)-1):])}))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev.ID)
		run, err := objects.NewJSONObject(r.Algo(), objects.TypeRun, 1, objects.ObjectValue(
			objects.Member{Key: "events", Value: list(evs)},
			objects.Member{Key: "roots", Value: list(evs[:1])},
			objects.Member{Key: "tips", Value: list(evs[len(evs)-1:])}))
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, ev, run)
		runs = append(runs, run.ID)
	}
	if err := objects.PutAll(context.Background(), r.Objects(), batch); err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestFileFetchKeepsABatch: a path fetch (what tine clone does) once kept
// every run it walked decoded and handed them all to the receiver as one
// batch (167 MiB live as it installed 1,000 runs listing 500,500 event
// oids). The walk keeps each object's links as numbers now, runs are read
// again when sent, and batches hold at most FileBatchBytes of bodies (9
// MiB live as each arrives). The figure is live heap after a collection as
// each batch arrives, less the heap before the fetch; not a time.
func TestFileFetchKeepsABatch(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 1,000 runs of up to 1,000 events")
	}
	ctx := context.Background()
	dir := t.TempDir()
	src, _, err := plumbing.Init(dir, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	runs := loopShape(t, src, 1000)
	src.Close()
	tr, err := remote.Open(ctx, dir, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	dst, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	rs, err := remote.NewRepoSink(dst)
	if err != nil {
		t.Fatal(err)
	}
	sink := &heapSink{RepoSink: rs, before: liveHeap()}
	if _, err := tr.Fetch(ctx, remote.FetchRequest{Wants: runs, Depth: remote.NoDepth}, sink); err != nil {
		t.Fatal(err)
	}
	if sink.held > 32<<20 {
		t.Fatalf("the fetch holds %d MiB as a batch arrives, want under 32 MiB", sink.held>>20)
	}
	if sink.Installed != 2000 || sink.batches < 2 || sink.maxBytes > remote.FileBatchBytes {
		t.Fatalf("%d objects in %d batches of at most %d bytes of bodies, want 2,000 in batches of at most %d",
			sink.Installed, sink.batches, sink.maxBytes, remote.FileBatchBytes)
	}
	res, err := plumbing.Fsck(ctx, dst, plumbing.FsckOptions{})
	if err != nil || !res.OK() || res.Objects != 2000 {
		t.Fatalf("fsck of the fetched repository: %+v, %v", res, err)
	}
	t.Logf("the fetch holds %d KiB at most, in %d batches", sink.held>>10, sink.batches)
}

// heapSink is a RepoSink that measures, as each batch arrives, the live
// heap above before (what the transfer holds: the walk, the batch and
// what earlier batches left) and the batch's body bytes.
type heapSink struct {
	*remote.RepoSink
	before   int64
	held     int64
	maxBytes int64
	batches  int
}

// InstallRead measures, then installs.
func (s *heapSink) InstallRead(ctx context.Context, objs []*objects.Object, boundary []objects.OID) error {
	s.held = max(s.held, liveHeap()-s.before)
	var n int64
	for _, o := range objs {
		n += int64(len(o.Body))
	}
	s.maxBytes = max(s.maxBytes, n)
	s.batches++
	return s.RepoSink.InstallRead(ctx, objs, boundary)
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
