package remotetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
)

func testShallow(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	a := NewRepo(t, objects.BLAKE3)
	s := pushRecorded(t, tr, a, 6)

	b := NewRepo(t, objects.BLAKE3)
	Fetch(t, tr, b, 2, s.run)
	// Depth 2: the tip and its parent, not the four before.
	for i, e := range s.events {
		if want := i >= 4; b.Has(e) != want {
			t.Fatalf("depth 2: event %d present=%v", i, !want)
		}
	}
	if !b.Has(s.eval) || !b.Has(s.note2) {
		t.Fatal("depth 2 left out the run's associations")
	}
	// The run's other events are its boundary: links the fetch left out.
	wantShallow(t, b, s.events[:4]...)
	b.Fsck()

	// Deepen by 2 from the frontier (the missing parent of the oldest
	// fetched event): events 2 and 3.
	Fetch(t, tr, b, 2, s.events[3])
	if !b.Has(s.events[2]) || !b.Has(s.events[3]) || b.Has(s.events[1]) {
		t.Fatal("deepen 2 did not bring exactly two more generations")
	}
	wantShallow(t, b, s.events[:2]...)
	b.Fsck()
	// Unlimited from the new frontier completes the run.
	Fetch(t, tr, b, remote.NoDepth, s.events[1])
	wantShallow(t, b)
	for _, e := range s.events {
		if !b.Has(e) {
			t.Fatalf("full deepen left out %s", e)
		}
	}
	b.Fsck()
}

// wantShallow fails unless r's shallow file lists exactly ids.
func wantShallow(t testing.TB, r *Repo, ids ...objects.OID) {
	t.Helper()
	got, err := r.R.Refs().ReadShallow()
	if err != nil {
		t.Fatal(err)
	}
	want := slices.SortedFunc(slices.Values(ids), objects.OID.Compare)
	if !slices.Equal(got, want) {
		t.Fatalf("shallow file %v, want %v", got, want)
	}
}

// pushers is how many repositories race for one remote ref per round.
const pushers = 16

func testConcurrentPushers(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	seed := NewRepo(t, objects.BLAKE3)
	base := record(seed, 2)
	MustMove(t, Push(t, tr, seed, []remote.RefUpdate{{Name: "heads/main", New: base.run}}, base.run))

	locals := make([]*Repo, pushers)
	for i := range locals {
		locals[i] = NewRepo(t, objects.BLAKE3)
	}
	cur := base.run
	curEvents := base.events
	for round := range 3 {
		runs := make([]objects.OID, pushers)
		events := make([][]objects.OID, pushers)
		for i, l := range locals {
			Fetch(t, tr, l, remote.NoDepth, cur)
			more := l.Chain(fmt.Sprintf("round %d pusher %d", round, i), 2, curEvents[len(curEvents)-1])
			events[i] = append(append([]objects.OID{}, curEvents...), more...)
			runs[i] = l.Run(events[i])
			l.Evaluate(runs[i], float64(i)/pushers)
		}
		results := make([]remote.RefResult, pushers)
		errs := make([]error, pushers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, l := range locals {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own, err := remote.Open(context.Background(), rem.URL, rem.Options)
				if err != nil {
					errs[i] = err
					return
				}
				defer own.Close()
				set := l.Closure(nil, remote.NoDepth, runs[i])
				<-start
				res, err := own.Push(context.Background(), remote.PushRequest{Source: l.R.Objects(), Set: set,
					Updates: []remote.RefUpdate{{Name: "heads/main", Old: cur, New: runs[i]}}})
				if err != nil {
					errs[i] = err
					return
				}
				results[i] = res.Refs[0]
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i := range locals {
			if errs[i] != nil {
				t.Fatalf("round %d pusher %d: %v", round, i, errs[i])
			}
			if results[i].Updated {
				if winner >= 0 {
					t.Fatalf("round %d: pushers %d and %d both moved heads/main", round, winner, i)
				}
				winner = i
			} else if !errors.Is(results[i].Err, remote.ErrConflict) {
				t.Fatalf("round %d pusher %d lost with %v, want a conflict", round, i, results[i].Err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no pusher won", round)
		}
		if got := RefMap(t, tr)["heads/main"]; got != runs[winner] {
			t.Fatalf("round %d: heads/main is %s, the winner pushed %s", round, got, runs[winner])
		}
		for i := range locals {
			if i != winner {
				wantConflict(t, results[i], runs[winner])
			}
		}
		cur, curEvents = runs[winner], events[winner]
	}
	clone := checkRemote(t, rem, objects.BLAKE3)
	for _, e := range curEvents {
		if !clone.Has(e) {
			t.Fatalf("the final run's event %s was lost", e)
		}
	}
	for _, l := range locals {
		l.Fsck()
	}
}
