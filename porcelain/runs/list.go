package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// RefLister lists refs under a prefix in name order; *refs.Store is one.
type RefLister interface {
	List(ctx context.Context, prefix string, fn func(name string, id objects.OID) error) error
}

// Reflogger reads a ref's reflog, oldest first; *refs.Store is one.
type Reflogger interface {
	Reflog(name string) ([]refs.ReflogEntry, error)
}

// ListRuns calls fn, in ref order, with every ref under prefix ("" is all
// refs) that names a run, and that run's payload read through g (events
// not loaded: LoadEvents adds them). Refs naming other objects are skipped;
// a run that cannot be read is an error naming its ref. It is the one
// "runs under a prefix" listing of log, gates and loops.
func ListRuns(ctx context.Context, rl RefLister, g objects.Getter, prefix string, fn func(ref string, run *Run) error) error {
	return rl.List(ctx, prefix, func(name string, id objects.OID) error {
		if id.Type != objects.TypeRun {
			return nil
		}
		o, err := g.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("ref %s: run %s: %w", name, id, err)
		}
		run, err := RunFromObject(o)
		if err != nil {
			return fmt.Errorf("ref %s: %w", name, err)
		}
		return fn(name, run)
	})
}

// ListRunsReadOrder is ListRuns calling fn in the order g reads the runs
// at least cost (objects.ReadOrderer: a storage pack's write order), not
// in ref order; each run is read once, and refs naming the same run are
// passed one after another, in ref order. It is for readers that visit
// every run and keep little of each: a loop's branch runs are deltas of
// one another, and read in ref order each read can re-apply a chain of a
// hundred deltas.
func ListRunsReadOrder(ctx context.Context, rl RefLister, g objects.Getter, prefix string, fn func(ref string, run *Run) error) error {
	names := map[objects.OID][]string{}
	var ids []objects.OID
	err := rl.List(ctx, prefix, func(name string, id objects.OID) error {
		if id.Type != objects.TypeRun {
			return nil
		}
		if _, ok := names[id]; !ok {
			ids = append(ids, id)
		}
		names[id] = append(names[id], name)
		return nil
	})
	if err != nil {
		return err
	}
	objects.SortForRead(g, ids)
	for _, id := range ids {
		refs := names[id]
		o, err := g.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("ref %s: run %s: %w", refs[0], id, err)
		}
		run, err := RunFromObject(o)
		if err != nil {
			return fmt.Errorf("ref %s: %w", refs[0], err)
		}
		for _, name := range refs {
			if err := fn(name, run); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadEvents reads every event run lists through g (each read re-verifies
// the oid) into run.Events. An event that is absent is kept as a Missing
// event; a corrupt one is an error naming it. cache, when not nil, holds
// events already read and receives the ones read now, so runs sharing a
// history (a loop's branches) read each event once.
func LoadEvents(ctx context.Context, g objects.Getter, run *Run, cache map[objects.OID]*Event) error {
	ids := run.EventIDs()
	run.Events = make([]*Event, 0, len(ids))
	for _, eid := range ids {
		if ev, ok := cache[eid]; ok {
			run.Events = append(run.Events, ev)
			continue
		}
		ev, err := loadEvent(ctx, g, run.ID, eid)
		if err != nil {
			return err
		}
		if cache != nil {
			cache[eid] = ev
		}
		run.Events = append(run.Events, ev)
	}
	run.Reindex()
	return nil
}

// loadEvent reads and decodes event eid of run runID through g (the read
// re-verifies the oid). An event on the shallow boundary is a Missing
// event; one absent otherwise (the repository is damaged) or corrupt is an
// error naming the run and the event.
func loadEvent(ctx context.Context, g objects.Getter, runID, eid objects.OID) (*Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eo, err := g.Get(ctx, eid)
	if err != nil {
		if err := plumbing.Absent(eid, err); err != nil {
			return nil, fmt.Errorf("run %s: event %s: %w", runID, eid, err)
		}
		return &Event{ID: eid, Missing: true}, nil
	}
	ev, err := DecodeEvent(eo)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	return ev, nil
}
