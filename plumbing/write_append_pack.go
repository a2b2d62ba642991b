package plumbing

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// AppendPackLimit is how many storage packs an append tolerates before it
// merges the small ones (pack.Store.MergeSmall): appends write a pack
// each, and a read that misses searches every pack.
const AppendPackLimit = 8

// writeAppendPack is WriteAppend's write where tine keeps objects in
// storage packs: the new objects and the run go into one new pack, the
// run stored as a delta on base's chain when base is packed
// (pack.Store.WriteAppendPack), so a run appended one event at a time
// costs about its events, not a whole snapshot per append. The run is
// written in the same pack as the objects it names, so it is never
// durable without them. Then, when the packs have piled up and no gc is
// running, the small ones are merged; a merge that fails leaves every
// object readable, and its error is returned.
func (r *Repo) writeAppendPack(ctx context.Context, ap appendPacker, objs []*objects.Object, base *objects.Object) error {
	run := objs[len(objs)-1]
	fresh := make([]*objects.Object, 0, len(objs))
	for _, o := range objs[:len(objs)-1] {
		// Objects already stored (a blob recorded before) are not copied.
		if ok, err := r.objs.Has(ctx, o.ID); err != nil {
			return err
		} else if !ok {
			fresh = append(fresh, o)
		}
	}
	var baseID objects.OID
	if base != nil {
		baseID = base.ID
	}
	if err := ap.WriteAppendPack(ctx, append(fresh, run), baseID); err != nil {
		return fmt.Errorf("store %s: %w", run.ID, err)
	}
	return r.mergeSmallPacks(ctx)
}

// appendPacker is the store of a repository that keeps objects in storage
// packs (reloadingStore): it writes an append as one pack. A store wrapped
// by OpenOptions.WrapObjects does not have it, so appends through such a
// store take the BulkWriter path the wrapper sees.
type appendPacker interface {
	WriteAppendPack(ctx context.Context, objs []*objects.Object, base objects.OID) error
	WriteForkPack(ctx context.Context, run *objects.Object, source objects.OID) error
}

// WriteAppendPack takes the writers' lock, then writes objs (the last a
// run extending base) as one storage pack (pack.Store.WriteAppendPack).
func (s reloadingStore) WriteAppendPack(ctx context.Context, objs []*objects.Object, base objects.OID) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	_, err := s.Packs().WriteAppendPack(ctx, objs, base)
	return err
}

// WriteForkPack takes the writers' lock, then writes the fork run as one
// storage pack, a delta on source when source is packed
// (pack.Store.WriteForkPack).
func (s reloadingStore) WriteForkPack(ctx context.Context, run *objects.Object, source objects.OID) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	_, err := s.Packs().WriteForkPack(ctx, []*objects.Object{run}, source)
	return err
}

// MergeSmallPacks merges the small storage packs when there are more than
// AppendPackLimit, as an append does after writing its pack: a writer
// that stores one transfer in several batches (a pack each) calls it after
// each. It does nothing in a repository without storage packs, or while a
// gc (or another merge) holds the gc lock: that one will do it. A merge
// that fails leaves every object readable.
func (r *Repo) MergeSmallPacks(ctx context.Context) error {
	if r.packs == nil {
		return nil
	}
	return r.mergeSmallPacks(ctx)
}

// mergeSmallPacks merges the small storage packs when there are more than
// AppendPackLimit, unless a gc (or another merge) holds the gc lock: that
// one will do it.
func (r *Repo) mergeSmallPacks(ctx context.Context) error {
	names, err := r.packs.Packs()
	if err != nil {
		return err
	}
	if len(names) <= AppendPackLimit {
		return nil
	}
	fl, err := r.lockFile(gcLock)
	if err != nil {
		return err
	}
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return err
	}
	defer fl.Unlock()
	if err := r.packs.Reload(); err != nil {
		return err
	}
	if _, err := r.packs.MergeSmall(ctx, AppendPackLimit); err != nil {
		return fmt.Errorf("merge small storage packs (the new objects are stored; tine gc merges them later): %w", err)
	}
	return nil
}

// AppendsToPacks reports whether WriteAppend writes appends as storage
// packs (objects/pack/) rather than loose files (objects/<type>/).
func (r *Repo) AppendsToPacks() bool {
	_, ok := r.objs.(appendPacker)
	return ok
}
