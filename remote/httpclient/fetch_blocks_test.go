package httpclient_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// fetchTrace records the fetch replies of a tine serve: the Tine-Frame
// each request asked for, whether the reply was a version 2 frame, and
// the payload digests of the blocks it carried, each mapped to whether
// the block holds a run (which a full fetch holds back to the end, apart
// from the other objects of its block, so that block's objects are
// stored one by one).
type fetchTrace struct {
	mu       sync.Mutex
	asked    []string
	replies  int
	v2       int
	payloads map[[32]byte]bool
}

// snapshot returns a copy of the trace so far and, with reset, starts it
// anew.
func (tr *fetchTrace) snapshot(reset bool) *fetchTrace {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	c := &fetchTrace{asked: tr.asked, replies: tr.replies, v2: tr.v2, payloads: tr.payloads}
	if reset {
		tr.asked, tr.replies, tr.v2, tr.payloads = nil, 0, 0, map[[32]byte]bool{}
	}
	return c
}

// kept counts the blocks of the trace whose payloads are in stored, and
// those that should be: every block without a run.
func (tr *fetchTrace) kept(stored map[[32]byte]bool) (got, want int) {
	for p, run := range tr.payloads {
		if stored[p] {
			got++
		}
		if !run {
			want++
		}
	}
	return got, want
}

// serveTraced serves s over real HTTP, tracing its fetch replies.
func serveTraced(t *testing.T, s *httpserve.Server, a objects.Algo) (*httptest.Server, *fetchTrace) {
	t.Helper()
	tr := &fetchTrace{payloads: map[[32]byte]bool{}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/fetch") {
			s.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		// Traced before the reply goes out, so the client's next step sees it.
		defer func() {
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		}()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.asked = append(tr.asked, r.Header.Get(wire.HeaderFrame))
		tr.replies++
		if b := rec.Body.Bytes(); wire.IsFrameBlocks(b) {
			tr.v2++
			_, blocks, err := wire.ReadFrameBlocks(b, a, objects.PackLimits{Objects: wire.TineMaxPackObjects, Shallow: wire.TineMaxShallow})
			if err != nil {
				t.Errorf("tine serve's version 2 reply: %v", err)
			}
			for _, bl := range blocks {
				run := false
				for _, id := range bl.IDs {
					run = run || id.Type == objects.TypeRun
				}
				tr.payloads[sha256.Sum256(bl.Payload)] = run
			}
		}
	}))
	t.Cleanup(hs.Close)
	return hs, tr
}

// appendChain stores, in one batch (so in a storage pack of a BLAKE3
// repository), n events with output blobs, the first a child of the last
// of evs, and the run of evs and them; it returns the run and every event.
func appendChain(t *testing.T, r *plumbing.Repo, evs []objects.OID, n int) (objects.OID, []objects.OID) {
	t.Helper()
	var objs []*objects.Object
	evs = append([]objects.OID(nil), evs...)
	for i := 0; i < n; i++ {
		blob := objects.NewBlob(r.Algo(), []byte(fmt.Sprintf("output %d of a chain of %d, %x", len(evs), n, sha256.Sum256([]byte{byte(i), byte(len(evs))}))))
		parents := "[]"
		if len(evs) > 0 {
			parents = `["` + evs[len(evs)-1].String() + `"]`
		}
		ev := jsonObject(t, r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":"e%d","output_blob":%q,"parent_ids":%s}`, len(evs), blob.ID.String(), parents))
		objs = append(objs, blob, ev)
		evs = append(evs, ev.ID)
	}
	run := runObject(t, r.Algo(), evs)
	if err := objects.PutAll(context.Background(), r.Objects(), append(objs, run)); err != nil {
		t.Fatal(err)
	}
	return run.ID, evs
}

// jsonObject builds an object of type ty from JSON text.
func jsonObject(t *testing.T, a objects.Algo, ty objects.Type, text string) *objects.Object {
	t.Helper()
	v, err := objects.ParseJSON([]byte(text), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.NewJSONObject(a, ty, 1, v)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// runObject builds the linear run over evs.
func runObject(t *testing.T, a objects.Algo, evs []objects.OID) *objects.Object {
	t.Helper()
	ids := make([]string, len(evs))
	for i, id := range evs {
		ids[i] = id.String()
	}
	return jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":["%s"],"roots":[%q],"tips":[%q]}`, strings.Join(ids, `","`), ids[0], ids[len(ids)-1]))
}

// pushBlocks pushes the closure of run minus what the remote holds
// (haves' closures), read through plumbing.TransferReader (so the
// tenant keeps the pushed storage blocks), and moves heads/main from old.
func pushBlocks(t *testing.T, tr remote.Transport, local *plumbing.Repo, run, old objects.OID, haves ...objects.OID) {
	t.Helper()
	ctx := context.Background()
	src, err := plumbing.RepoTransferSource(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	held := map[objects.OID]bool{}
	for _, h := range haves {
		hs, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: []objects.OID{h}, Depth: remote.NoDepth})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range hs.IDs {
			held[id] = true
		}
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: []objects.OID{run}, Depth: remote.NoDepth,
		Has: func(_ context.Context, id objects.OID) (bool, error) { return held[id], nil }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Push(ctx, remote.PushRequest{Source: plumbing.TransferReader(local), Set: set, Verified: true,
		Updates: []remote.RefUpdate{{Name: "heads/main", Old: old, New: run}}})
	if err != nil || !res.Refs[0].Updated {
		t.Fatalf("push: %+v, %v", res, err)
	}
}

// fetchInto fetches want into r (closure haves roots) and finishes.
func fetchInto(t *testing.T, tr remote.Transport, r *plumbing.Repo, want objects.OID, depth int, roots ...objects.OID) *remote.FetchResult {
	t.Helper()
	ctx := context.Background()
	sink, err := remote.NewRepoSink(r)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{want}, Depth: depth, HaveRoots: roots}, sink)
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if err := sink.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	return res
}

// storedPayloads returns the payload digests of r's storage blocks that
// hold only objects of ids.
func storedPayloads(t *testing.T, r *plumbing.Repo, ids []objects.OID) map[[32]byte]bool {
	t.Helper()
	blocks, _, err := plumbing.TransferReader(r).(remote.BlockSource).RawBlocks(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[32]byte]bool{}
	for _, b := range blocks {
		out[sha256.Sum256(b.Payload)] = true
	}
	return out
}

// sameObjects fails unless got stores every object of ids as want does.
func sameObjects(t *testing.T, want, got *plumbing.Repo, ids []objects.OID) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		w, err := want.Objects().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		g, err := got.Objects().Get(ctx, id)
		if err != nil || string(g.Stored()) != string(w.Stored()) {
			t.Fatalf("%s: %v", id, err)
		}
	}
}

// fsckClean fails unless r fscks without problems.
func fsckClean(t *testing.T, r *plumbing.Repo) {
	t.Helper()
	fr, err := plumbing.Fsck(context.Background(), r, plumbing.FsckOptions{})
	if err != nil || len(fr.Problems) != 0 {
		t.Fatalf("fsck: %+v, %v", fr, err)
	}
}

// TestFetchBlocksCloneAndIncrement fetches a run from tine serve over
// HTTP, then the events pushed on top of it: each fetch asks for version
// 2 (Tine-Frame: 2) and gets it, the blocks of the tenant's storage packs
// that hold wanted objects only travel as stored, and the clone keeps
// every one of them byte for byte in its own packs (its RawBlocks hands
// out the same payloads: nothing was compressed again), but for the one
// holding the run, which a full fetch holds back. The incremental
// fetch (the first run as a closure have) carries the new objects only.
// Both repositories fsck clean and hold the same objects.
func TestFetchBlocksCloneAndIncrement(t *testing.T) {
	a := objects.BLAKE3
	hs, tracer := serveTraced(t, newServer(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: a}), a)
	tr := openRemote(t, hs.URL)
	local := newRepoOf(t, a)
	run1, evs := appendChain(t, local, nil, 600)
	pushBlocks(t, tr, local, run1, objects.OID{})
	clone := newRepoOf(t, a)
	res := fetchInto(t, tr, clone, run1, remote.NoDepth)
	trace := tracer.snapshot(true)
	ids1 := closureOf(t, local, run1).IDs
	if res.Objects != len(ids1) || trace.v2 != trace.replies || len(trace.payloads) < 5 {
		t.Fatalf("clone: %d objects of %d; %d version 2 replies of %d, %d blocks", res.Objects, len(ids1), trace.v2, trace.replies, len(trace.payloads))
	}
	if got, want := trace.kept(storedPayloads(t, clone, ids1)); got != want || want < 5 {
		t.Fatalf("%d of the reply's %d blocks are stored as they came in the clone's packs, want %d", got, len(trace.payloads), want)
	}
	sameObjects(t, local, clone, ids1)

	run2, _ := appendChain(t, local, evs, 300)
	pushBlocks(t, tr, local, run2, run1, run1)
	tracer.snapshot(true) // the increment's fetch alone from here
	res = fetchInto(t, tr, clone, run2, remote.NoDepth, run1)
	trace = tracer.snapshot(false)
	ids2 := closureOf(t, local, run2).IDs
	// New: run2, and every object of run1's closure but run1.
	if res.Objects != len(ids2)-(len(ids1)-1) || trace.v2 != trace.replies || trace.replies == 0 || len(trace.payloads) < 2 {
		t.Fatalf("increment: %d objects, want %d; %d version 2 replies of %d, %d blocks", res.Objects, len(ids2)-(len(ids1)-1), trace.v2, trace.replies, len(trace.payloads))
	}
	if got, want := trace.kept(storedPayloads(t, clone, ids2)); got != want || want < 2 {
		t.Fatalf("%d of the incremental reply's %d blocks are stored as they came, want %d", got, len(trace.payloads), want)
	}
	if got := strings.Join(trace.asked, ","); strings.Trim(got, "2,") != "" {
		t.Fatalf("the fetches asked for frames %q, want version 2", got)
	}
	sameObjects(t, local, clone, ids2)
	fsckClean(t, clone)
}

// TestFetchBlocksShallow fetches a run with a depth over version 2: the
// blocks that also hold events past the depth do not travel raw (their
// wanted objects go one by one), the clone records the boundary, holds
// exactly the depth's events, and fscks clean.
func TestFetchBlocksShallow(t *testing.T) {
	a := objects.BLAKE3
	hs, tracer := serveTraced(t, newServer(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: a}), a)
	tr := openRemote(t, hs.URL)
	local := newRepoOf(t, a)
	run, evs := appendChain(t, local, nil, 500)
	pushBlocks(t, tr, local, run, objects.OID{})
	clone := newRepoOf(t, a)
	res := fetchInto(t, tr, clone, run, 7)
	trace := tracer.snapshot(false)
	// The run, its last 7 events and their blobs.
	if res.Objects != 15 || trace.v2 != 1 || trace.replies != 1 {
		t.Fatalf("%d objects, want 15; %d version 2 replies of %d", res.Objects, trace.v2, trace.replies)
	}
	ctx := context.Background()
	for i, ev := range evs {
		has, err := clone.Objects().Has(ctx, ev)
		if err != nil || has != (i >= len(evs)-7) {
			t.Fatalf("event %d: stored %v, %v", i, has, err)
		}
	}
	// The run names every event: those not fetched are the boundary.
	shallow, err := clone.Refs().ReadShallow()
	if err != nil || len(shallow) != len(evs)-7 {
		t.Fatalf("a shallow boundary of %d ids, %v; want %d", len(shallow), err, len(evs)-7)
	}
	for _, id := range shallow {
		if has, err := clone.Objects().Has(ctx, id); has || err != nil || id.Type != objects.TypeEvent {
			t.Fatalf("shallow %s: stored %v, %v", id, has, err)
		}
	}
	fsckClean(t, clone)
}

// TestFetchBlocksDeltaRuns fetches from a tenant whose run objects are
// stored as deltas (a run appended one step at a time, each run version a
// delta on the one before, plumbing.Repo.WriteAppend): a delta needs its
// base, so RawBlocks never hands it out and the run travels as an
// envelope beside the events' blocks; the clone rebuilds nothing, stores
// the run whole, and fscks clean.
func TestFetchBlocksDeltaRuns(t *testing.T) {
	a := objects.BLAKE3
	root := t.TempDir()
	tenant, _, err := plumbing.Init(filepath.Join(root, "tenants", "acme"), a)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var evs []objects.OID
	var base *objects.Object
	for step := 0; step < 12; step++ {
		var objs []*objects.Object
		for i := 0; i < 40; i++ {
			blob := objects.NewBlob(a, []byte(fmt.Sprintf("output of step %d event %d", step, i)))
			parents := "[]"
			if len(evs) > 0 {
				parents = `["` + evs[len(evs)-1].String() + `"]`
			}
			ev := jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","label":"s%d e%d","output_blob":%q,"parent_ids":%s}`, step, i, blob.ID.String(), parents))
			objs = append(objs, blob, ev)
			evs = append(evs, ev.ID)
		}
		run := runObject(t, a, evs)
		if err := tenant.WriteAppend(ctx, append(objs, run), base); err != nil {
			t.Fatal(err)
		}
		base = run
	}
	if err := tenant.Refs().Update(ctx, "heads/main", base.ID, objects.OID{}, "test"); err != nil {
		t.Fatal(err)
	}
	if covered := rawCovered(t, tenant, []objects.OID{base.ID}); covered != 0 {
		t.Fatalf("the tenant's last run travels raw (%d); the test needs it stored as a delta", covered)
	}
	tenant.Close()
	hs, tracer := serveTraced(t, newServer(t, httpserve.Config{Root: root, ObjectFormat: a}), a)
	tr := openRemote(t, hs.URL)
	clone := newRepoOf(t, a)
	res := fetchInto(t, tr, clone, base.ID, remote.NoDepth)
	trace := tracer.snapshot(false)
	if res.Objects != 2*len(evs)+1 || trace.v2 != trace.replies || len(trace.payloads) == 0 {
		t.Fatalf("%d objects, want %d; %d version 2 replies of %d, %d blocks", res.Objects, 2*len(evs)+1, trace.v2, trace.replies, len(trace.payloads))
	}
	got, err := clone.Objects().Get(ctx, base.ID)
	if err != nil || string(got.Stored()) != string(base.Stored()) {
		t.Fatalf("the clone's run: %v", err)
	}
	fsckClean(t, clone)
}

// rawCovered counts the ids of ids that r's RawBlocks would send raw.
func rawCovered(t *testing.T, r *plumbing.Repo, ids []objects.OID) int {
	t.Helper()
	_, covered, err := plumbing.TransferReader(r).(remote.BlockSource).RawBlocks(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range covered {
		if c {
			n++
		}
	}
	return n
}
