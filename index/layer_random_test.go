package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRandomUpdatesMatchABuild: a random sequence of ref moves of every
// kind (append, fork, delete, re-create at an old run, move to an
// unrelated run, truncate, rewrite past a shared prefix, two refs on one
// run) with attestations and annotations between them, refreshed after
// each step through layers and compactions, always reads back as exactly
// what a build from the objects holds.
func TestRandomUpdatesMatchABuild(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			if seed%2 == 0 {
				keepLayers(t)
			}
			randomUpdates(t, seed)
		})
	}
}

func randomUpdates(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	refNames := []string{"heads/main", "heads/a", "heads/b", "experiments/x/1", "tags/t"}
	runs := map[objects.OID][]objects.OID{f.main: {f.e1, f.e2}, f.forked: {f.e1, f.e2, f.e3}}
	var allRuns []objects.OID
	allRuns = append(allRuns, f.main, f.forked)
	var allEvents []objects.OID
	allEvents = append(allEvents, f.e1, f.e2, f.e3)
	n := 0
	var pruned []objects.OID
	newEvent := func(parents ...objects.OID) objects.OID {
		n++
		digest := ""
		if rng.IntN(2) == 0 {
			digest = fmt.Sprintf("d-%d", rng.IntN(6))
		}
		e := f.event(fmt.Sprintf("e%d-%d", seed, n), digest, parents...)
		allEvents = append(allEvents, e)
		return e
	}
	newRun := func(evs []objects.OID, forkOf objects.OID) objects.OID {
		var id objects.OID
		if !forkOf.IsZero() {
			id = f.fork(forkOf, evs)
		} else {
			id = f.run(evs)
		}
		if _, ok := runs[id]; !ok {
			allRuns = append(allRuns, id)
		}
		runs[id] = evs
		return id
	}
	cur := func(name string) (objects.OID, bool) {
		id, err := f.refs.Read(f.ctx, name)
		if err != nil || id.IsZero() || id.Type != objects.TypeRun {
			return objects.OID{}, false
		}
		return id, true
	}
	anyRun := func() objects.OID { return allRuns[rng.IntN(len(allRuns))] }
	actions := map[string]int{}
	defer func() { t.Logf("actions %v", actions) }()
	for step := range 60 {
		name := refNames[rng.IntN(len(refNames))]
		op := rng.IntN(11)
		switch op {
		case 0, 1: // append one or more events to the ref's run
			r, ok := cur(name)
			if !ok {
				r = anyRun()
			}
			evs := append([]objects.OID(nil), runs[r]...)
			for range 1 + rng.IntN(3) {
				evs = append(evs, newEvent(evs[len(evs)-1]))
			}
			f.setRef(name, newRun(evs, objects.OID{}))
		case 2: // fork any run at any event into the ref
			src := anyRun()
			evs := runs[src]
			k := 1 + rng.IntN(len(evs))
			nevs := append(append([]objects.OID(nil), evs[:k]...), newEvent(evs[k-1]))
			f.setRef(name, newRun(nevs, src))
		case 3: // delete
			if _, ok := cur(name); ok {
				if err := f.refs.Delete(f.ctx, name, refsAny()); err != nil {
					t.Fatal(err)
				}
			}
		case 4: // re-create or move to any old run
			f.setRef(name, anyRun())
		case 5: // truncate
			r, ok := cur(name)
			if !ok || len(runs[r]) < 2 {
				continue
			}
			evs := runs[r]
			f.setRef(name, newRun(append([]objects.OID(nil), evs[:1+rng.IntN(len(evs)-1)]...), objects.OID{}))
		case 6: // rewrite past a shared prefix: drop the rest, add a new tail
			r, ok := cur(name)
			if !ok || len(runs[r]) < 2 {
				continue
			}
			evs := runs[r]
			nevs := append([]objects.OID(nil), evs[:1+rng.IntN(len(evs)-1)]...)
			for range 1 + rng.IntN(2) {
				nevs = append(nevs, newEvent(nevs[len(nevs)-1]))
			}
			f.setRef(name, newRun(nevs, objects.OID{}))
		case 7: // an unrelated run of fresh events
			e := newEvent()
			f.setRef(name, newRun([]objects.OID{e, newEvent(e)}, objects.OID{}))
		case 8:
			pruned = append(pruned, f.evaluate(anyRun(), fmt.Sprintf("s%d", step), score("accuracy", rng.Float64())))
		case 10: // prune an attestation or annotation
			if len(pruned) == 0 {
				continue
			}
			k := rng.IntN(len(pruned))
			p, err := f.store.Path(pruned[k])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			pruned = append(pruned[:k], pruned[k+1:]...)
		case 9:
			pruned = append(pruned, f.put(objects.TypeAnnotation, objects.Member{Key: "target_id", Value: str(allEvents[rng.IntN(len(allEvents))].String())},
				objects.Member{Key: "value", Value: str(fmt.Sprint(step))}))
		}
		rep, err := f.ix.Update(f.ctx)
		if err != nil {
			t.Fatalf("step %d (op %d): update: %v", step, op, err)
		}
		if rep.Action == ActionRebuilt {
			t.Fatalf("step %d (op %d): rebuilt: %s", step, op, rep.Reason)
		}
		actions[rep.Action]++
		st, err := f.ix.Status(f.ctx)
		if err != nil || st.State != StateFresh {
			t.Fatalf("step %d (op %d): status %+v, %v", step, op, st, err)
		}
		if got, want := f.merged(), f.scratch(); !bytes.Equal(got, want) {
			t.Fatalf("step %d (op %d on %s): base and layers differ from a build", step, op, name)
		}
	}
}
