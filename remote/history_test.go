package remote_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// countingStore counts the reads a history check makes: Gets by object
// type, and Has.
type countingStore struct {
	objects.Store
	gets map[objects.Type]int
	has  int
}

func (s *countingStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	s.gets[id.Type]++
	return s.Store.Get(ctx, id)
}

func (s *countingStore) Has(ctx context.Context, id objects.OID) (bool, error) {
	s.has++
	return s.Store.Has(ctx, id)
}

// check runs a HistoryCheck creating (or moving from old) ref name to
// target in r, counting its reads.
func check(t *testing.T, r *remotetest.Repo, name string, old, target objects.OID) (*countingStore, error) {
	t.Helper()
	ctx := context.Background()
	o, err := r.R.Objects().Get(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: r.R.Objects(), gets: map[objects.Type]int{}}
	err = remote.HistoryCheck{Objects: cs, Refs: r.R.Refs()}.Check(ctx, name, old, o)
	return cs, err
}

// TestCreatedRefWalksOnlyNewWork: creating a ref costs what no existing
// ref holds. heads/main names a run of 200 events; a second name for it
// reads nothing, a fork of its first 150 events reads heads/main's run
// object alone, and a new run of heads/main's events plus 100 reads that
// run and the 100 new events (with their blobs' presence). Before, each
// creation walked the whole history: 150, 200 or 300 events and blobs.
func TestCreatedRefWalksOnlyNewWork(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	main := r.Chain("main", 200, objects.OID{})
	mainRun := r.Run(main)
	r.SetRef("heads/main", mainRun)
	fork := r.Run(main[:150])
	grown := r.Run(append(append([]objects.OID(nil), main...), r.Chain("more", 100, main[199])...))

	for _, tc := range []struct {
		what         string
		target       objects.OID
		gets, events int
		has          int
	}{
		{"second name", mainRun, 0, 0, 0},
		{"fork", fork, 1, 0, 0},
		{"grown", grown, 101, 100, 100},
	} {
		cs, err := check(t, r, "experiments/"+tc.what, objects.OID{}, tc.target)
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		gets := 0
		for _, n := range cs.gets {
			gets += n
		}
		if gets != tc.gets || cs.gets[objects.TypeEvent] != tc.events || cs.has != tc.has {
			t.Errorf("%s: %d reads (%d events), %d presence checks; want %d (%d), %d", tc.what, gets, cs.gets[objects.TypeEvent], cs.has, tc.gets, tc.events, tc.has)
		}
	}
}

// TestCreatedRefLookupIsBounded: a new run that shares nothing with the
// existing refs reads at most heldLookupFactor (8) times its event count
// of other runs' listings, plus one run, before walking its own history:
// here 5 refs name runs of the first 200, 199, ... 196 events of one
// chain, the new run has 100 others, so 4 of those runs are read (202 +
// 201 + 200 + 199 links > 800), then its 100 events. A creation of a
// short run (under 64 events) reads none.
func TestCreatedRefLookupIsBounded(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	chain := r.Chain("b", 200, objects.OID{})
	for i := range 5 {
		r.SetRef(fmt.Sprintf("heads/b%d", i), r.Run(chain[:200-i]))
	}
	long := r.Run(r.Chain("new", 100, objects.OID{}))
	short := r.Run(r.Chain("short", 10, objects.OID{}))
	cs, err := check(t, r, "experiments/long", objects.OID{}, long)
	if err != nil {
		t.Fatal(err)
	}
	if cs.gets[objects.TypeRun] != 4 || cs.gets[objects.TypeEvent] != 100 || cs.has != 100 {
		t.Errorf("long: %d runs, %d events read, %d presence checks; want 4, 100, 100", cs.gets[objects.TypeRun], cs.gets[objects.TypeEvent], cs.has)
	}
	cs, err = check(t, r, "experiments/short", objects.OID{}, short)
	if err != nil {
		t.Fatal(err)
	}
	if cs.gets[objects.TypeRun] != 0 || cs.gets[objects.TypeEvent] != 10 {
		t.Errorf("short: %d runs, %d events read; want 0, 10", cs.gets[objects.TypeRun], cs.gets[objects.TypeEvent])
	}
}

// TestCreatedRefMissingHistoryRefused: holding what existing refs name
// lets nothing else through. A fork of heads/main's first 100 events
// plus 80 of its own, one of which is not stored, is refused naming that
// event; so is a run of heads/main's events plus one whose blob is not
// stored; a run that is not heads/main's value but lists its events is
// refused when an event it adds is missing, though heads/main's run holds
// the rest.
func TestCreatedRefMissingHistoryRefused(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	main := r.Chain("main", 120, objects.OID{})
	r.SetRef("heads/main", r.Run(main))
	// Built in another repository, copied here without one object.
	other := remotetest.NewRepo(t, objects.BLAKE3)
	copyInto(t, r, other, nil, main...)
	own := other.Chain("own", 80, main[99])
	forkRun := other.Run(append(append([]objects.OID(nil), main[:100]...), own...))
	tail := other.Event("tail", main[119])
	tailObj, err := other.R.Objects().Get(context.Background(), tail)
	if err != nil {
		t.Fatal(err)
	}
	links, err := objects.Links(tailObj)
	if err != nil {
		t.Fatal(err)
	}
	var tailBlob objects.OID
	for _, l := range links {
		if l.Type == objects.TypeBlob {
			tailBlob = l
		}
	}
	tailRun := other.Run(append(append([]objects.OID(nil), main...), tail))
	copyInto(t, other, r, map[objects.OID]bool{own[40]: true, tailBlob: true}, forkRun, tailRun)
	for _, tc := range []struct {
		target, missing objects.OID
	}{
		{forkRun, own[40]},
		{tailRun, tailBlob},
	} {
		_, err := check(t, r, "experiments/x", objects.OID{}, tc.target)
		var m *remote.MissingHistoryError
		if !errors.As(err, &m) || m.Missing != tc.missing || m.Target != tc.target || m.Ref != "experiments/x" || !errors.Is(err, remote.ErrMissingHistory) {
			t.Fatalf("%s: %v; want missing %s", tc.target, err, tc.missing)
		}
	}
}

// copyInto stores in to the link closure of wants as from holds it,
// minus skip, with plain Puts that check no links.
func copyInto(t *testing.T, from, to *remotetest.Repo, skip map[objects.OID]bool, wants ...objects.OID) {
	t.Helper()
	ctx := context.Background()
	for _, id := range from.Closure(nil, remote.NoDepth, wants...).IDs {
		if skip[id] {
			continue
		}
		o, err := from.R.Objects().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := to.R.Objects().Put(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCreatedRefLookupChargesEachRead: every run the creation lookup
// reads counts against its budget, not only the events it lists. Here
// 200 refs name runs that list nothing, and a new run of 64 events of
// its own is created: the lookup reads at most as many runs as the walk
// reads events (64), then walks them. Before, a run listing nothing cost
// the budget nothing, so every run ref of the repository (up to
// wire.MaxRefs, 4,096) was read for each such creation.
func TestCreatedRefLookupChargesEachRead(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	ctx := context.Background()
	for i := range 200 {
		o, err := objects.NewJSONObject(objects.BLAKE3, objects.TypeRun, 1, objects.ObjectValue(
			objects.Member{Key: "label", Value: objects.String(fmt.Sprintf("empty %d", i))}))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.R.Objects().Put(ctx, o); err != nil {
			t.Fatal(err)
		}
		r.SetRef(fmt.Sprintf("heads/empty%d", i), o.ID)
	}
	target := r.Run(r.Chain("new", 64, objects.OID{}))
	cs, err := check(t, r, "experiments/new", objects.OID{}, target)
	if err != nil {
		t.Fatal(err)
	}
	if cs.gets[objects.TypeRun] > 64 || cs.gets[objects.TypeEvent] != 64 {
		t.Errorf("%d runs and %d events read; want at most 64 runs, and 64 events", cs.gets[objects.TypeRun], cs.gets[objects.TypeEvent])
	}
}
