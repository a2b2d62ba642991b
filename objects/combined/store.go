package combined

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
)

// DefaultMinPackBatch is the batch size from which Store.PutBatch
// writes a storage pack instead of loose files: below it the loose store's
// concurrent fsyncs cost about as much and leave no tiny packs for gc.
const DefaultMinPackBatch = 64

// Store is the repository's object store: loose objects (the SPEC's
// format, which OpenTine reads) in front of tine's storage packs. Reads try
// the loose store, then the packs; Put writes loose files; PutBatch writes
// large batches as one new pack, paying one round of fsyncs per batch. It
// is safe for concurrent use.
type Store struct {
	loose        *loose.Store
	packs        *pack.Store
	minPackBatch int
}

var _ interface {
	objects.Store
	objects.BatchPutter
	objects.TypeLister
	objects.ReadOrderer
} = (*Store)(nil)

// New combines a loose store and the pack store of the same
// repository; both must use the same hash profile.
func New(loose *loose.Store, packs *pack.Store) (*Store, error) {
	if loose.Algo() != packs.Algo() {
		return nil, fmt.Errorf("combine object stores: loose uses %s, packs use %s: %w", loose.Algo(), packs.Algo(), objects.ErrAlgoMismatch)
	}
	return &Store{loose: loose, packs: packs, minPackBatch: DefaultMinPackBatch}, nil
}

// SetMinPackBatch sets the batch size from which PutBatch writes a pack
// (values below 1 mean 1). It must be called before the store is shared.
func (c *Store) SetMinPackBatch(n int) { c.minPackBatch = max(n, 1) }

// Loose returns the loose store.
func (c *Store) Loose() *loose.Store { return c.loose }

// Packs returns the pack store.
func (c *Store) Packs() *pack.Store { return c.packs }

// Algo returns the store's hash profile.
func (c *Store) Algo() objects.Algo { return c.loose.Algo() }

// Get reads id from the loose store, else from the packs. A damaged loose
// copy is reported, not skipped: a read never hides corruption behind
// another copy of a different store.
func (c *Store) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := c.loose.Get(ctx, id)
	if !errors.Is(err, objects.ErrNotFound) {
		return o, err
	}
	return c.packs.Get(ctx, id)
}

// GetUnparsed is Get without the json body's parse
// (objects.DecodeEnvelopeUnparsedAs).
func (c *Store) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := c.loose.GetUnparsed(ctx, id)
	if !errors.Is(err, objects.ErrNotFound) {
		return o, err
	}
	return c.packs.GetUnparsed(ctx, id)
}

// SortForRead reorders ids into the packs' write order
// (objects.ReadOrderer); ids no pack holds, loose ones among them, come
// first.
func (c *Store) SortForRead(ids []objects.OID) { c.packs.SortForRead(ids) }

// Has reports whether the loose store or a pack holds id.
func (c *Store) Has(ctx context.Context, id objects.OID) (bool, error) {
	ok, err := c.loose.Has(ctx, id)
	if ok || err != nil {
		return ok, err
	}
	return c.packs.Has(ctx, id)
}

// Put stores o as a loose object unless a sound copy already exists. Like
// the loose store's Put it reads an existing copy back, so a damaged copy
// is superseded by a loose one (which reads find first).
func (c *Store) Put(ctx context.Context, o *objects.Object) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := objects.CheckPut(c.Algo(), o); err != nil {
		return err
	}
	if c.packedSound(ctx, o) {
		return nil
	}
	return c.loose.Put(ctx, o)
}

// packedSound reports whether the object is absent loose but held, intact,
// by a pack.
func (c *Store) packedSound(ctx context.Context, o *objects.Object) bool {
	if ok, err := c.loose.Has(ctx, o.ID); ok || err != nil {
		return false
	}
	return c.packSound(ctx, o)
}

// packSound reports whether a pack holds the object intact (the caller
// knows it has no loose file).
func (c *Store) packSound(ctx context.Context, o *objects.Object) bool {
	if ok, err := c.packs.Has(ctx, o.ID); !ok || err != nil {
		return false
	}
	got, err := c.packs.Get(ctx, o.ID)
	return err == nil && got.Schema == o.Schema && bytes.Equal(got.Body, o.Body)
}

// PutBatch stores objs. The objects not already stored form one new pack
// when there are at least the minimum pack batch of them (see
// SetMinPackBatch): two file fsyncs and two directory fsyncs for the whole
// batch instead of one per object. Smaller batches, and objects that have a
// loose file (which the loose store checks and repairs, since reads find it
// first), go to the loose store.
func (c *Store) PutBatch(ctx context.Context, objs []*objects.Object) error {
	var loose, packed []*objects.Object
	ids := make([]objects.OID, len(objs))
	for i, o := range objs {
		if err := objects.CheckPut(c.Algo(), o); err != nil {
			return err
		}
		ids[i] = o.ID
	}
	// A look per fan-out directory, not per object (loose.MayHold).
	inLoose, err := c.loose.MayHold(ctx, ids)
	if err != nil {
		return err
	}
	for i, o := range objs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if inLoose[i] {
			loose = append(loose, o)
			continue
		}
		if !c.packSound(ctx, o) { // no loose file: checked just above
			packed = append(packed, o)
		}
	}
	if len(packed) < c.minPackBatch {
		return c.loose.PutBatch(ctx, append(loose, packed...))
	}
	if err := c.loose.PutBatch(ctx, loose); err != nil {
		return err
	}
	_, err = c.packs.WritePack(ctx, packed, pack.Options{})
	return err
}

// List calls fn for every object of both stores once, in enumeration order
// (SPEC §2.1), merging the loose listing with the packs' ids.
func (c *Store) List(ctx context.Context, fn func(objects.OID) error) error {
	return c.ListTypes(ctx, objects.Types, fn)
}

// ListTypes is List restricted to the given types (objects.TypeLister):
// the loose store reads only their directories and the packs collect only
// their ids. An object both loose and packed is listed once.
func (c *Store) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	packed, err := c.packs.SortedIDsOf(types)
	if err != nil {
		return err
	}
	return merge(packed, func(each func(objects.OID) error) error {
		return c.loose.ListTypes(ctx, types, each)
	}, fn)
}

// ListTypesReloading is ListTypes for a handle other processes write
// through: it lists the loose ids first, then re-scans the packs
// (pack.Store.Reload) and only then takes their ids. gc commits the pack
// holding a loose object before it unlinks the file, so an object whose
// loose file is gone when its directory is read is in a pack the re-scan
// finds. Taking the packs' ids first, as ListTypes does, misses it in both
// places, and so does a handle whose pack list predates the gc.
func (c *Store) ListTypesReloading(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var loose []objects.OID
	if err := c.loose.ListTypes(ctx, types, func(id objects.OID) error {
		loose = append(loose, id)
		return nil
	}); err != nil {
		return err
	}
	if err := c.packs.Reload(); err != nil {
		return err
	}
	packed, err := c.packs.SortedIDsOf(types)
	if err != nil {
		return err
	}
	return merge(packed, func(each func(objects.OID) error) error {
		for _, id := range loose {
			if err := each(id); err != nil {
				return err
			}
		}
		return nil
	}, fn)
}

// merge calls fn for every id of packed (sorted) and of listLoose (which
// enumerates in enumeration order) once, in enumeration order.
func merge(packed []objects.OID, listLoose func(func(objects.OID) error) error, fn func(objects.OID) error) error {
	err := listLoose(func(id objects.OID) error {
		for len(packed) > 0 && enumLess(packed[0], id) {
			if err := fn(packed[0]); err != nil {
				return err
			}
			packed = packed[1:]
		}
		if len(packed) > 0 && packed[0] == id {
			packed = packed[1:]
		}
		return fn(id)
	})
	if err != nil {
		return err
	}
	for _, id := range packed {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

// enumLess orders two oids of one profile in enumeration order: by type
// name, then digest (no type name is a prefix of another, so this is the
// order of their spellings).
func enumLess(a, b objects.OID) bool {
	if a.Type != b.Type {
		return a.Type < b.Type
	}
	return bytes.Compare(a.Digest[:], b.Digest[:]) < 0
}
