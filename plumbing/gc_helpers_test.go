package plumbing

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/refs"
)

// chainObjects builds (without storing) n chained events, each linking an
// output blob, and a run over the events: 2n+1 objects, links first.
func chainObjects(t testing.TB, a objects.Algo, label string, n int) (run *objects.Object, all []*objects.Object) {
	t.Helper()
	var evs []objects.OID
	for i := 0; i < n; i++ {
		b := objects.NewBlob(a, []byte(fmt.Sprintf("output of %s step %d", label, i)))
		all = append(all, b)
		ev := jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":"%s-%d","output_blob":%q,"parent_ids":%s}`,
			label, i, b.ID, oidList(evs[max(0, len(evs)-1):])))
		all = append(all, ev)
		evs = append(evs, ev.ID)
	}
	run = chainRun(t, a, evs)
	return run, append(all, run)
}

// storeChain stores a chain's objects loose (one batch of concurrent
// fsyncs) or as one pack, and points ref at its run.
func storeChain(t testing.TB, r *Repo, ref string, packed bool, n int) []objects.OID {
	t.Helper()
	ctx := context.Background()
	run, all := chainObjects(t, r.Algo(), ref, n)
	var err error
	if packed {
		_, err = r.Packs().WritePack(ctx, all, pack.Options{})
	} else {
		err = r.Loose().PutBatch(ctx, all)
	}
	if err != nil {
		t.Fatalf("store %s: %v", ref, err)
	}
	setRef(t, r, ref, run.ID)
	ids := make([]objects.OID, len(all))
	for i, o := range all {
		ids[i] = o.ID
	}
	return ids
}

// setRef points ref at id whatever it held.
func setRef(t testing.TB, r *Repo, ref string, id objects.OID) {
	t.Helper()
	if err := r.Refs().UpdateExpect(context.Background(), ref, id, refs.ExpectAny, "test"); err != nil {
		t.Fatalf("update %s: %v", ref, err)
	}
}

// mustReadAll fails unless every id reads back through a freshly opened
// repository.
func mustReadAll(t testing.TB, root string, ids []objects.OID) {
	t.Helper()
	r, err := Open(root)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer r.Close()
	for _, id := range ids {
		if _, err := r.Objects().Get(context.Background(), id); err != nil {
			t.Fatalf("read %s: %v", id, err)
		}
	}
}

// mustFsckClean fails when fsck finds a problem.
func mustFsckClean(t testing.TB, r *Repo) *FsckResult {
	t.Helper()
	res, err := Fsck(context.Background(), r, FsckOptions{})
	if err != nil {
		t.Fatalf("fsck: %v", err)
	}
	if !res.OK() {
		t.Fatalf("fsck problems: %+v", res.Problems)
	}
	return res
}

// age sets a file's modification time d in the past.
func age(t testing.TB, path string, d time.Duration) {
	t.Helper()
	when := time.Now().Add(-d)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// looseCount counts the loose objects.
func looseCount(t testing.TB, r *Repo) int {
	t.Helper()
	n := 0
	if err := r.Loose().List(context.Background(), func(objects.OID) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// packNames returns the storage packs of s (a Repo or a combined store),
// failing the test on an error.
func packNames(t testing.TB, s interface{ Packs() *pack.Store }) []string {
	t.Helper()
	names, err := s.Packs().Packs()
	if err != nil {
		t.Fatalf("storage packs: %v", err)
	}
	return names
}
