package plumbing

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// transferReader reads a repository's objects for one transfer. For each
// type of which the loose store held no file when the transfer began (the
// usual case: history arrives by import, fetch or a repack, all of which
// write storage packs) it asks the packs first, sparing a failing loose
// lookup per object, which was about a tenth of a path push's CPU. A miss
// or an error there falls back to the store's ordinary read (loose first,
// then the packs), so an object written loose since, or a damaged packed
// copy, reads exactly as before; every read still derives the oid from the
// stored bytes.
type transferReader struct {
	objects.Store
	r *Repo
	// packFirst lists the types whose loose directory was empty.
	packFirst map[objects.Type]bool
}

// TransferReader returns a store reading r's objects for one transfer (see
// transferReader): what a push reads its upload through. Like r.Objects()
// it derives every oid from the stored bytes. Use it for one transfer
// only: it looks at the loose directories once.
func TransferReader(r *Repo) objects.Store { return newTransferReader(r) }

// newTransferReader looks at r's loose type directories once.
func newTransferReader(r *Repo) *transferReader {
	t := &transferReader{Store: r.Objects(), r: r, packFirst: map[objects.Type]bool{}}
	if r.packs == nil {
		return t
	}
	for _, ty := range objects.Types {
		if looseTypeEmpty(r, ty) {
			t.packFirst[ty] = true
		}
	}
	return t
}

// looseTypeEmpty reports whether r's loose store has no fan-out directory
// entry for type ty (a missing type directory counts as empty; anything
// unreadable as not empty, so the ordinary read decides).
func looseTypeEmpty(r *Repo, ty objects.Type) bool {
	probe := objects.OID{Algo: r.algo, Type: ty}
	p, err := r.loose.Path(probe)
	if err != nil {
		return false
	}
	typeDir := filepath.Dir(filepath.Dir(p))
	entries, err := os.ReadDir(typeDir)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && len(entries) == 0
}

// Get reads id from the packs first when its type had no loose files.
func (t *transferReader) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if t.packFirst[id.Type] {
		if o, err := t.r.packs.Get(ctx, id); err == nil {
			return o, nil
		}
	}
	return t.Store.Get(ctx, id)
}

// GetUnparsed is Get without parsing a json body (objects.GetUnparsed),
// the oid still derived from the stored bytes.
func (t *transferReader) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if t.packFirst[id.Type] {
		if o, err := t.r.packs.GetUnparsed(ctx, id); err == nil {
			return o, nil
		}
	}
	return objects.GetUnparsed(ctx, t.Store, id)
}

// Has asks the packs first when id's type had no loose files.
func (t *transferReader) Has(ctx context.Context, id objects.OID) (bool, error) {
	if t.packFirst[id.Type] {
		if ok, err := t.r.packs.Has(ctx, id); ok && err == nil {
			return true, nil
		}
	}
	return t.Store.Has(ctx, id)
}

// ReceiverHas returns what a transfer's walk asks the receiving repository
// r: whether it holds an object. For a type of which r's loose store held
// no file when ReceiverHas was called it consults only the packs open then,
// sparing a failing loose lookup per object a fetch or push brings. An
// object another writer stores meanwhile may thus be reported absent: it
// is then sent again, and the store keeps one copy (PutBatch checks what
// it holds), so the answer may err only towards sending more.
func ReceiverHas(r *Repo) func(context.Context, objects.OID) (bool, error) {
	t := newTransferReader(r)
	return func(ctx context.Context, id objects.OID) (bool, error) {
		if t.packFirst[id.Type] {
			return t.r.packs.Has(ctx, id)
		}
		return t.Store.Has(ctx, id)
	}
}

// RawBlocks returns the storage blocks of the repository's packs holding
// nothing but objects of ids, as they are stored (pack.Store.RawBlocks),
// with covered[i] set for each ids[i] they hold; a repository without
// packs has none. A push to a receiver that keeps such blocks sends them
// instead of the objects.
func (t *transferReader) RawBlocks(ctx context.Context, ids []objects.OID) ([]pack.RawBlock, []bool, error) {
	if t.r.packs == nil {
		return nil, make([]bool, len(ids)), nil
	}
	return t.r.packs.RawBlocks(ctx, ids)
}
