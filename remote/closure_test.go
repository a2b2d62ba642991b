package remote_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// dependencyOrdered fails unless every link of every object in set.IDs is
// earlier in the list or in the boundary or had.
func dependencyOrdered(t *testing.T, r *remotetest.Repo, set *plumbing.TransferSet, had map[objects.OID]bool) {
	t.Helper()
	pos := map[objects.OID]int{}
	for i, id := range set.IDs {
		pos[id] = i
	}
	for i, id := range set.IDs {
		o, err := set.Object(context.Background(), r.R.Objects(), id)
		if err != nil {
			t.Fatal(err)
		}
		links, _ := objects.Links(o)
		for _, l := range links {
			j, in := pos[l]
			switch {
			case in && j >= i:
				t.Fatalf("%s comes before its link %s", id, l)
			case !in && !had[l] && !slices.Contains(set.Boundary, l):
				t.Fatalf("link %s of %s is neither sent, had nor boundary", l, id)
			}
		}
	}
}

func TestTransferClosureAssociations(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	ev := r.Chain("e", 4, objects.OID{})
	run := r.Run(ev)
	eval := r.Evaluate(run, 0.5)
	n1 := r.Annotate(run, objects.OID{}, "one")
	n2 := r.Annotate(run, n1, "two")
	waiver := r.Annotate(ev[2], objects.OID{}, "waiver")
	other := r.Run(r.Chain("x", 1, objects.OID{}))
	r.Evaluate(other, 0.1) // not reachable from run: stays home

	set := r.Closure(nil, plumbing.NoDepth, run)
	// 4 events, 4 blobs, run, evaluation, 2 chain notes, waiver.
	if len(set.IDs) != 13 || len(set.Boundary) != 0 || set.Associations != 4 {
		t.Fatalf("closure: %d ids, %d boundary, %d associations", len(set.IDs), len(set.Boundary), set.Associations)
	}
	for _, id := range []objects.OID{eval, n1, n2, waiver} {
		if !slices.Contains(set.IDs, id) {
			t.Fatalf("closure left out association %s", id)
		}
	}
	dependencyOrdered(t, r, set, nil)

	// A receiver holding the run still gets a new association of it, and
	// nothing it holds.
	had := map[objects.OID]bool{}
	for _, id := range set.IDs {
		had[id] = true
	}
	eval2 := r.Evaluate(run, 0.7)
	has := func(_ context.Context, id objects.OID) (bool, error) { return had[id], nil }
	set = r.Closure(has, plumbing.NoDepth, run)
	if !slices.Equal(set.IDs, []objects.OID{eval2}) {
		t.Fatalf("closure for a receiver holding the run: %v, want only %s", set.IDs, eval2)
	}
}

// TestTransferClosureHeldEventAssociations: an annotation made on an event
// after the receiver got the event travels, like a new evaluation of a
// run it holds: when the receiver holds the run, when the run grew since
// (a new run listing the held events), under a depth (the held tip and
// the held events it cuts), and when the event is first reached as
// another annotation's evidence.
func TestTransferClosureHeldEventAssociations(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	ev := r.Chain("e", 4, objects.OID{})
	run := r.Run(ev)
	had := map[objects.OID]bool{}
	for _, id := range r.Closure(nil, plumbing.NoDepth, run).IDs {
		had[id] = true
	}
	has := func(_ context.Context, id objects.OID) (bool, error) { return had[id], nil }
	late := r.Annotate(ev[1], objects.OID{}, "flaky, waived later")
	if set := r.Closure(has, plumbing.NoDepth, run); !slices.Equal(set.IDs, []objects.OID{late}) {
		t.Fatalf("closure for a receiver holding the run: %v, want only %s", set.IDs, late)
	}

	more := r.Event("more", ev[3])
	grown := r.Run(append(slices.Clone(ev), more))
	set := r.Closure(has, plumbing.NoDepth, grown)
	for _, id := range []objects.OID{late, more, grown} {
		if !slices.Contains(set.IDs, id) {
			t.Fatalf("closure of the grown run for a receiver holding the old one left out %s: %v", id, set.IDs)
		}
	}
	dependencyOrdered(t, r, set, had)

	// A depth bounds the history that travels, not the notes on history
	// the receiver holds (a full fetch over HTTP walks in depth windows);
	// a receiver without the events gets no note of one the depth cuts.
	atTip := r.Annotate(ev[3], objects.OID{}, "the tip, noted later")
	if set := r.Closure(has, 1, run); !slices.Contains(set.IDs, atTip) || !slices.Contains(set.IDs, late) || len(set.IDs) != 2 {
		t.Fatalf("depth 1 for a receiver holding the run: %v, want the notes %s and %s", set.IDs, atTip, late)
	}
	if set := r.Closure(nil, 1, run); !slices.Contains(set.IDs, atTip) || slices.Contains(set.IDs, late) {
		t.Fatalf("depth 1 for an empty receiver: %v, want the tip's note %s and not %s", set.IDs, atTip, late)
	}

	// A note whose evidence is ev[2] reaches ev[2] before the run lists it.
	had[late], had[atTip] = true, true
	cites := r.Annotate(run, objects.OID{}, "see step 2", ev[2])
	onTwo := r.Annotate(ev[2], objects.OID{}, "step 2, noted later")
	if set := r.Closure(has, plumbing.NoDepth, cites, run); !slices.Contains(set.IDs, onTwo) {
		t.Fatalf("closure reaching %s as evidence first left out its note %s: %v", ev[2], onTwo, set.IDs)
	}
}

func TestTransferClosureDepth(t *testing.T) {
	r := remotetest.NewRepo(t, objects.SHA256)
	ev := r.Chain("e", 5, objects.OID{})
	run := r.Run(ev)
	for _, c := range []struct{ depth, wantEvents int }{{0, 0}, {1, 1}, {2, 2}, {5, 5}, {9, 5}, {plumbing.NoDepth, 5}} {
		depth, wantEvents := c.depth, c.wantEvents
		set := r.Closure(nil, depth, run)
		n := 0
		for _, id := range set.IDs {
			if id.Type == objects.TypeEvent {
				n++
			}
		}
		if n != wantEvents {
			t.Fatalf("depth %d: %d events, want %d", depth, n, wantEvents)
		}
		dependencyOrdered(t, r, set, nil)
		if wantBoundary := 5 - n; len(set.Boundary) != wantBoundary {
			t.Fatalf("depth %d: boundary %v, want %d events", depth, set.Boundary, wantBoundary)
		}
	}
	// An event want is hop 1: deepening from the boundary by 2.
	set := r.Closure(nil, 2, ev[2])
	if !slices.Contains(set.IDs, ev[2]) || !slices.Contains(set.IDs, ev[1]) || slices.Contains(set.IDs, ev[0]) {
		t.Fatalf("deepen 2 from %s: %v", ev[2], set.IDs)
	}
}

func TestTransferClosureMissingObject(t *testing.T) {
	r := remotetest.NewRepo(t, objects.BLAKE3)
	dangling := remotetest.NewRepo(t, objects.BLAKE3).Event("elsewhere", objects.OID{})
	r.Event("here", objects.OID{})
	src, err := plumbing.RepoTransferSource(context.Background(), r.R)
	if err != nil {
		t.Fatal(err)
	}
	_, err = plumbing.TransferClosure(context.Background(), src, plumbing.TransferOptions{Wants: []objects.OID{dangling}, Depth: plumbing.NoDepth})
	if !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("closure of a missing want: %v", err)
	}
}

// TestSetLinksExternal checks that a frame's shallow list taken from the
// walk's links is the one parsing every object gives: for the whole set,
// a shallow one, slices of it, and an object the walk never read.
func TestSetLinksExternal(t *testing.T) {
	ctx := context.Background()
	r := remotetest.NewRepo(t, objects.BLAKE3)
	ev := r.Chain("e", 12, objects.OID{})
	run := r.Run(ev)
	r.Evaluate(run, 0.5)
	r.Annotate(run, objects.OID{}, "note")
	stray := r.Run(r.Chain("x", 2, objects.OID{}))
	for _, depth := range []int{plumbing.NoDepth, 3} {
		set := r.Closure(nil, depth, run)
		var objs []*objects.Object
		for _, id := range set.IDs {
			o, err := set.Object(ctx, r.R.Objects(), id)
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, o)
		}
		so, err := r.R.Objects().Get(ctx, stray)
		if err != nil {
			t.Fatal(err)
		}
		links := (*remote.SetLinks)(set)
		for _, part := range [][]*objects.Object{objs, objs[:len(objs)/2], objs[len(objs)/3:], append(slices.Clone(objs[:5]), so)} {
			want, err := remote.ExternalLinks(part)
			if err != nil {
				t.Fatal(err)
			}
			got, err := links.External(part)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("depth %d, %d objects: shallow list %v from the walk, %v parsed", depth, len(part), got, want)
			}
		}
		if _, ok := set.Links(stray); ok {
			t.Fatalf("the walk claims links of %s, which it never reached", stray)
		}
	}
}

// lyingSource is a transfer source whose catalog also names extra as an
// association of every run.
type lyingSource struct {
	plumbing.TransferSource
	extra objects.OID
}

// Associations adds extra to a run's.
func (s lyingSource) Associations(ctx context.Context, id objects.OID) ([]objects.OID, error) {
	ids, err := s.TransferSource.Associations(ctx, id)
	if id.Type == objects.TypeRun {
		ids = append(ids, s.extra)
	}
	return ids, err
}

// TestTransferClosureRefusesCatalogLies: a catalog (a derived file of the
// repository walked, which a path remote's owner controls) naming as a
// run's association an object that does not target the run fails the
// walk, naming both: a note on another run would bring that run along,
// a run its whole history.
func TestTransferClosureRefusesCatalogLies(t *testing.T) {
	ctx := context.Background()
	r := remotetest.NewRepo(t, objects.BLAKE3)
	run := r.Run(r.Chain("e", 2, objects.OID{}))
	other := r.Run(r.Chain("x", 2, objects.OID{}))
	src, err := plumbing.RepoTransferSource(ctx, r.R)
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range []objects.OID{r.Annotate(other, objects.OID{}, "elsewhere"), other} {
		_, err := plumbing.TransferClosure(ctx, lyingSource{src, extra}, plumbing.TransferOptions{Wants: []objects.OID{run}, Depth: plumbing.NoDepth})
		if err == nil || !strings.Contains(err.Error(), "the catalog lists "+extra.String()+" as an attestation or annotation of "+run.String()) {
			t.Fatalf("closure over a catalog naming %s: %v", extra, err)
		}
	}
	// The truth passes.
	if set := r.Closure(nil, plumbing.NoDepth, run); slices.Contains(set.IDs, other) {
		t.Fatalf("the closure of %s holds %s", run, other)
	}
}
