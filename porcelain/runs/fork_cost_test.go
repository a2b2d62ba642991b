package runs_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// TestForkReadsItsClosureOnce: forking a 2,000-event run at its 11th event
// reads those 11 events once each and no other event of the source (it
// used to read every event of the source, then the closure again to
// validate the new run).
func TestForkReadsItsClosureOnce(t *testing.T) {
	const n = 2000
	r := newRepo(t)
	base := importN(t, r, n)
	ctx := context.Background()
	// The import left the catalog to its next reader; bring it up to date
	// first, so the fork's own refresh reads only the fork.
	if _, err := plumbing.OpenIndex(r).Update(ctx); err != nil {
		t.Fatal(err)
	}
	c, cs := openCounting(t, r)
	cs.reset()
	at := base.Events[10]
	res, err := runs.Fork(ctx, c, runs.ForkOptions{Source: "heads/main", From: at, Ref: "experiments/early"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 11 {
		t.Fatalf("fork holds %d events, want 11", res.Events)
	}
	for i, id := range base.Events {
		got := cs.eventReads[mustOID(t, id)]
		if i <= 10 && got > 1 || i > 10 && got > 0 {
			t.Fatalf("event %d of the source read %d times", i, got)
		}
	}
	fork, err := runs.LoadRun(ctx, c.Objects(), mustOID(t, res.Run))
	if err != nil || len(fork.Events) != 11 || fork.Events[10].ID != mustOID(t, at) {
		t.Fatalf("fork run: %v", err)
	}
}

// TestForkAtTipStoresADelta: where appends write storage packs, a fork of
// a long run at its newest event stores a delta against the source, not a
// second copy of the event list.
func TestForkAtTipStoresADelta(t *testing.T) {
	const n = 3000
	r := newRepo(t)
	importN(t, r, n)
	if !r.AppendsToPacks() {
		t.Skip("this repository keeps objects loose")
	}
	ctx := context.Background()
	// One append so the source run is packed (an import of 3,000 events
	// wrote it in a pack already; the append makes it a chain).
	importN(t, r, 1)
	before := objectBytes(t, r)
	res, err := runs.Fork(ctx, r, runs.ForkOptions{Source: "heads/main", From: "heads/main", Ref: "experiments/tip"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := r.Objects().Get(ctx, mustOID(t, res.Run))
	if err != nil {
		t.Fatal(err)
	}
	if grew := objectBytes(t, r) - before; grew > int64(len(o.Stored()))/20 {
		t.Fatalf("the fork's %d-byte run grew the object store by %d bytes", len(o.Stored()), grew)
	}
}

// objectBytes returns the bytes of the object files under objects/: loose
// objects and storage packs, not the derived catalog (objects/catalog/)
// or the lock files.
func objectBytes(t testing.TB, r *plumbing.Repo) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(filepath.Join(r.Root(), "objects"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "catalog" || d.Name() == "locks") {
			return filepath.SkipDir
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
