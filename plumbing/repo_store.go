package plumbing

import (
	"context"
	"errors"
	"io"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
)

// reloadingStore is the repository's object store: the combined store,
// taking the writers' lock before any write (repo_lock.go) and
// re-scanning objects/pack/ once when an object is not found. Another
// process's gc may have moved the object from a loose file into a pack
// this handle has not seen; gc commits the pack before it unlinks the
// loose file, so the re-scan finds it. Packs an old handle still has open
// stay readable after gc deletes them (their files stay open). A listing
// by type re-scans too (ListTypes), as it cannot see what it misses.
type reloadingStore struct {
	*combined.Store
	r *Repo
}

// Put takes the writers' lock, then stores o.
func (s reloadingStore) Put(ctx context.Context, o *objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.Put(ctx, o)
}

// PutBatch takes the writers' lock, then stores objs.
func (s reloadingStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.PutBatch(ctx, objs)
}

// PutBlobFrom takes the writers' lock, then streams a blob into the loose
// store.
func (s reloadingStore) PutBlobFrom(ctx context.Context, rd io.Reader) (objects.OID, error) {
	if err := s.r.LockWriters(ctx); err != nil {
		return objects.OID{}, err
	}
	return s.Loose().PutBlobFrom(ctx, rd)
}

// Get reads id, re-scanning the packs once on a miss. A miss of an oid
// on the shallow boundary also wraps ErrBeyondShallow (classifyMiss).
func (s reloadingStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.Get(ctx, id)
	if errors.Is(err, objects.ErrNotFound) && s.Packs().Reload() == nil {
		o, err = s.Store.Get(ctx, id)
	}
	return o, s.r.classifyMiss(id, err)
}

// GetUnparsed is Get without the json body's parse
// (objects.DecodeEnvelopeUnparsedAs).
func (s reloadingStore) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.GetUnparsed(ctx, id)
	if errors.Is(err, objects.ErrNotFound) && s.Packs().Reload() == nil {
		o, err = s.Store.GetUnparsed(ctx, id)
	}
	return o, s.r.classifyMiss(id, err)
}

// Has reports whether id is stored, re-scanning the packs once on a miss.
func (s reloadingStore) Has(ctx context.Context, id objects.OID) (bool, error) {
	ok, err := s.Store.Has(ctx, id)
	if !ok && err == nil && s.Packs().Reload() == nil {
		return s.Store.Has(ctx, id)
	}
	return ok, err
}

// ListTypes lists the objects of the given types (objects.TypeLister):
// the loose files first, then the packs after a re-scan, so an object
// another process's gc moved from a loose file into a pack this handle
// has not seen is listed all the same (combined.Store.ListTypesReloading).
func (s reloadingStore) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	return s.Store.ListTypesReloading(ctx, types, fn)
}

// PutBatchBlocks takes the writers' lock, then stores objs, writing the
// raw blocks they arrived in as they are where it can
// (combined.Store.PutBatchBlocks).
func (s reloadingStore) PutBatchBlocks(ctx context.Context, objs []*objects.Object, blocks []pack.RawBlock) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.PutBatchBlocks(ctx, objs, blocks)
}

// lockingLoose is the object store of a repository whose storage packs
// could not be opened: the loose store, taking the writers' lock before any
// write.
type lockingLoose struct {
	*loose.Store
	r *Repo
}

// Put takes the writers' lock, then stores o.
func (s lockingLoose) Put(ctx context.Context, o *objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.Put(ctx, o)
}

// PutBatch takes the writers' lock, then stores objs.
func (s lockingLoose) PutBatch(ctx context.Context, objs []*objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.PutBatch(ctx, objs)
}

// PutBlobFrom takes the writers' lock, then streams a blob.
func (s lockingLoose) PutBlobFrom(ctx context.Context, rd io.Reader) (objects.OID, error) {
	if err := s.r.LockWriters(ctx); err != nil {
		return objects.OID{}, err
	}
	return s.Store.PutBlobFrom(ctx, rd)
}

// Loose returns the loose store, for callers that look for it.
func (s lockingLoose) Loose() *loose.Store { return s.Store }

// Get reads id; a miss on the shallow boundary is marked (classifyMiss).
func (s lockingLoose) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.Get(ctx, id)
	return o, s.r.classifyMiss(id, err)
}

// GetUnparsed is Get without the json body's parse.
func (s lockingLoose) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.GetUnparsed(ctx, id)
	return o, s.r.classifyMiss(id, err)
}
