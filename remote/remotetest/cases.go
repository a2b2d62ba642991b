package remotetest

import (
	"context"
	"errors"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// story is a recorded run with every kind of association: an evaluation,
// an annotation chain on the run and a note on one of its events.
type story struct {
	run, eval, note1, note2, eventNote objects.OID
	events                             []objects.OID
}

// record writes a story of n events into r.
func record(r *Repo, n int) story {
	s := story{events: r.Chain("step", n, objects.OID{})}
	s.run = r.Run(s.events)
	s.eval = r.Evaluate(s.run, 0.9)
	s.note1 = r.Annotate(s.run, objects.OID{}, "first look")
	s.note2 = r.Annotate(s.run, s.note1, "second look")
	s.eventNote = r.Annotate(s.events[1], objects.OID{}, "waived")
	return s
}

// pushRecorded records a story of n events into r and pushes its run to
// heads/main through tr, which must move the ref.
func pushRecorded(t *testing.T, tr remote.Transport, r *Repo, n int) story {
	t.Helper()
	s := record(r, n)
	MustMove(t, Push(t, tr, r, []remote.RefUpdate{{Name: "heads/main", New: s.run}}, s.run))
	return s
}

func testRefsListing(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	d, err := tr.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Exists && d.ObjectFormat != objects.BLAKE3 {
		t.Fatalf("describe: format %q, want blake3", d.ObjectFormat)
	}
	local := NewRepo(t, objects.BLAKE3)
	a, b := record(local, 3), record(local, 2)
	res := Push(t, tr, local, []remote.RefUpdate{
		{Name: "heads/main", New: a.run},
		{Name: "experiments/try/1", New: b.run},
	}, a.run, b.run)
	MustMove(t, res)
	got := RefMap(t, tr)
	if got["heads/main"] != a.run || got["experiments/try/1"] != b.run {
		t.Fatalf("refs after push: %v", got)
	}
	d, err = tr.Describe(context.Background())
	if err != nil || !d.Exists || d.ObjectFormat != objects.BLAKE3 {
		t.Fatalf("describe after push: %+v, %v", d, err)
	}
	checkRemote(t, rem, objects.BLAKE3)
}

func testFetchAssociations(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.SHA256)
	tr := Open(t, rem)
	local := NewRepo(t, objects.SHA256)
	s := pushRecorded(t, tr, local, 5)

	other := NewRepo(t, objects.SHA256)
	res := Fetch(t, Open(t, rem), other, remote.NoDepth, RefMap(t, tr)["heads/main"])
	for _, id := range append([]objects.OID{s.run, s.eval, s.note1, s.note2, s.eventNote}, s.events...) {
		if !other.Has(id) {
			t.Fatalf("fetch did not bring %s", id)
		}
	}
	// 5 events, 5 output blobs, the run, the evaluation, three notes.
	if res.Objects < 15 {
		t.Fatalf("fetch reported %d objects, want at least 15", res.Objects)
	}
	other.Fsck()
	cat, _, err := plumbing.OpenIndex(other.R).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if atts := cat.AttestationsFor(s.run); len(atts) != 1 || atts[0].ID != s.eval {
		t.Fatalf("the clone's catalog has attestations %v for the run", atts)
	}
}

func testRoundTrip(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	a := NewRepo(t, objects.BLAKE3)
	s := pushRecorded(t, tr, a, 4)

	b := NewRepo(t, objects.BLAKE3)
	Fetch(t, tr, b, remote.NoDepth, s.run)
	// b continues the run and evaluates the old one again; both travel.
	more := b.Chain("more", 3, s.events[len(s.events)-1])
	run2 := b.Run(append(append([]objects.OID{}, s.events...), more...))
	eval2 := b.Evaluate(s.run, 0.95)
	res := Push(t, tr, b, []remote.RefUpdate{{Name: "heads/main", Old: s.run, New: run2}}, run2, s.run)
	MustMove(t, res)

	Fetch(t, tr, a, remote.NoDepth, run2, s.run)
	for _, id := range append([]objects.OID{run2, eval2}, more...) {
		if !a.Has(id) {
			t.Fatalf("round trip lost %s", id)
		}
	}
	a.Fsck()
	b.Fsck()
	checkRemote(t, rem, objects.BLAKE3)
}

func testConflict(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	a := NewRepo(t, objects.BLAKE3)
	s1, s2 := record(a, 2), record(a, 3)
	MustMove(t, Push(t, tr, a, []remote.RefUpdate{{Name: "heads/main", New: s1.run}}, s1.run))
	// A stale expectation (absent) and a wrong value both lose; a second
	// ref in the same push still moves.
	res := Push(t, tr, a, []remote.RefUpdate{
		{Name: "heads/main", New: s2.run},
		{Name: "heads/other", New: s2.run},
		{Name: "heads/main", Old: s2.run, New: s2.run},
	}, s2.run)
	wantConflict(t, res.Refs[0], s1.run)
	if !res.Refs[1].Updated {
		t.Fatalf("heads/other did not move: %v", res.Refs[1].Err)
	}
	wantConflict(t, res.Refs[2], s1.run)
	if got := RefMap(t, tr)["heads/main"]; got != s1.run {
		t.Fatalf("a lost CAS overwrote heads/main: %s", got)
	}
	checkRemote(t, rem, objects.BLAKE3)
}

func testObjectFormat(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.SHA256)
	tr := Open(t, rem)
	shaLocal := NewRepo(t, objects.SHA256)
	s := pushRecorded(t, tr, shaLocal, 2)
	d, err := tr.Describe(context.Background())
	if err != nil || d.ObjectFormat != objects.SHA256 {
		t.Fatalf("describe: %+v, %v", d, err)
	}

	b3 := NewRepo(t, objects.BLAKE3)
	if _, err := fetch(tr, b3, remote.NoDepth, s.run); !errors.Is(err, remote.ErrObjectFormat) {
		t.Fatalf("fetch into a blake3 repository: %v, want ErrObjectFormat", err)
	}
	if n := countObjects(t, b3.R); n != 0 {
		t.Fatalf("a refused fetch stored %d objects", n)
	}
	bs := record(b3, 2)
	set := b3.Closure(nil, remote.NoDepth, bs.run)
	_, err = tr.Push(context.Background(), remote.PushRequest{Source: b3.R.Objects(), Set: set,
		Updates: []remote.RefUpdate{{Name: "heads/blake", New: bs.run}}})
	if !errors.Is(err, remote.ErrObjectFormat) {
		t.Fatalf("push of blake3 objects: %v, want ErrObjectFormat", err)
	}
	if _, ok := RefMap(t, tr)["heads/blake"]; ok {
		t.Fatal("a refused push moved a ref")
	}
	checkRemote(t, rem, objects.SHA256)
}

// countObjects counts the objects r stores.
func countObjects(t testing.TB, r *plumbing.Repo) int {
	t.Helper()
	n := 0
	if err := r.Objects().List(context.Background(), func(objects.OID) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
