package plumbing

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// WriteAppend is the write path of a run append: objs are the new objects
// (blobs, events) followed by the new run, which extends base (the run the
// ref names now; nil for a new run). It costs the new work, not the run's
// length:
//
//   - the new objects are validated in order as WriteValidated validates
//     them (each may link the ones before it);
//   - the run is checked by objects.ValidateAppend against base: base's
//     events list must be the run's prefix byte for byte, only the
//     appended oids are parsed, only the new links checked for existence,
//     only the appended events for the graph rules, roots and tips derived
//     from base's. No event of base is read, nor base's list parsed.
//     Where that does not apply (no base; a repository with a shallow
//     boundary, whose runs may be incomplete; a run that is not base plus
//     events at the end) the run gets the full objects.Validate;
//   - where tine keeps objects in storage packs (StoragePacks, and the
//     store is not wrapped by OpenOptions.WrapObjects), the new
//     objects and the run are written as one new pack, the run as a delta
//     on its predecessor's chain (write_append_pack.go): one round of
//     fsyncs, and storage about the size of the new events;
//   - elsewhere (a sha256 repository that keeps every object loose, so
//     OpenTine reads it) the new objects are written through a BulkWriter
//     (one round of fsyncs per batch) and the run last, as a loose file,
//     once they are durable, so it never names an object a crash could
//     lose.
//
// On a validation error nothing is written. A failed write may leave some
// of the new objects stored: unreachable, complete, never a corrupt state.
func (r *Repo) WriteAppend(ctx context.Context, objs []*objects.Object, base *objects.Object) error {
	if len(objs) == 0 || objs[len(objs)-1].Type != objects.TypeRun {
		return fmt.Errorf("write append: %w: the last object must be the run", ErrBadInput)
	}
	res, err := r.NewWriteResolver(ctx)
	if err != nil {
		return err
	}
	run := objs[len(objs)-1]
	for _, o := range objs[:len(objs)-1] {
		if _, err := objects.Validate(o, res); err != nil {
			return fmt.Errorf("%s %s: %w", o.Type, o.ID, err)
		}
		res.pending[o.ID] = o
	}
	if err := r.validateAppendedRun(res, run, base); err != nil {
		return fmt.Errorf("%s %s: %w", run.Type, run.ID, err)
	}
	if ap, ok := r.objs.(appendPacker); ok {
		return r.writeAppendPack(ctx, ap, objs, base)
	}
	w := NewBulkWriter(ctx, r.objs, BulkOptions{})
	for _, o := range objs[:len(objs)-1] {
		if _, err := w.Add(o); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := r.objs.Put(ctx, run); err != nil {
		return fmt.Errorf("store %s: %w", run.ID, err)
	}
	return nil
}

// validateAppendedRun checks run incrementally against base where that is
// sound (see WriteAppend), else in full.
func (r *Repo) validateAppendedRun(res *WriteResolver, run, base *objects.Object) error {
	if base == nil || res.HasShallowBoundary() {
		_, err := objects.Validate(run, res)
		return err
	}
	_, err := objects.ValidateAppend(run, base, res)
	if errors.Is(err, objects.ErrNotAppend) {
		_, err = objects.Validate(run, res)
	}
	return err
}
