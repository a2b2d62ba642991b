package plumbing

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// WriteFork is the write path of a fork: run is a new run whose events
// are the ancestor closure of one event of source, and closure holds
// those events as the caller read them from this repository (through
// Objects, which re-hashed each). It costs the closure, not the source:
//
//   - run is validated in full (objects.Validate: shape, links, run-graph
//     rules), but against a resolver that already holds closure, so
//     neither the existence checks of its event links nor the graph rules
//     read an event again; only links closure does not hold (forked_from's
//     run, payload links inherited from source) are looked up;
//   - where tine keeps objects in storage packs the run is written as a
//     pack of its own, a delta on source when source is packed
//     (pack.Store.WriteForkPack), so a fork of a 10,000-event run stores a
//     few hundred bytes instead of a second copy of its event list;
//     elsewhere it is one loose file.
//
// Nothing else is written: the events are source's, already stored.
func (r *Repo) WriteFork(ctx context.Context, run *objects.Object, source objects.OID, closure []*objects.Object) error {
	if run.Type != objects.TypeRun {
		return fmt.Errorf("write fork: %w: not a run", ErrBadInput)
	}
	res, err := r.NewWriteResolver(ctx)
	if err != nil {
		return err
	}
	for _, o := range closure {
		res.pending[o.ID] = o
	}
	if _, err := objects.Validate(run, res); err != nil {
		return fmt.Errorf("%s %s: %w", run.Type, run.ID, err)
	}
	if ap, ok := r.objs.(appendPacker); ok {
		if err := ap.WriteForkPack(ctx, run, source); err != nil {
			return fmt.Errorf("store %s: %w", run.ID, err)
		}
		return r.mergeSmallPacks(ctx)
	}
	if err := r.objs.Put(ctx, run); err != nil {
		return fmt.Errorf("store %s: %w", run.ID, err)
	}
	return nil
}
