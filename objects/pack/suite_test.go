package pack_test

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/objectstest"
	"github.com/tinehq/tine/objects/pack"
)

// packOnly is a pack store whose every Put writes a one-object pack, so the
// shared suite exercises the pack path of reads and writes and can damage
// packed objects (pack.CorruptPacked). The combined store's routing over
// packs runs the suite in objects/combined.
type packOnly struct{ *pack.Store }

func (s packOnly) Put(ctx context.Context, o *objects.Object) error {
	return s.PutBatch(ctx, []*objects.Object{o})
}

func (s packOnly) PutBatch(ctx context.Context, objs []*objects.Object) error {
	_, err := s.WritePack(ctx, objs, pack.Options{})
	return err
}

// Corrupt damages id inside the packs holding it.
func (s packOnly) Corrupt(id objects.OID) error { return pack.CorruptPacked(s.Store, id) }

func TestPackStoreSuite(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		s, err := pack.Open(t.TempDir(), a)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return packOnly{s}
	})
}

// appendPacks is a pack store that writes every run the way appends do
// (pack.Store.WriteAppendPack: a pack of its own, the run a delta on the
// previous run put when that is packed) and batches as one pack (whose
// runs the writer stores as deltas of each other), so the shared suite,
// corruption included, reads runs through delta chains within and across
// packs.
type appendPacks struct {
	*pack.Store
	last *objects.OID
}

func (s appendPacks) Put(ctx context.Context, o *objects.Object) error {
	if o.Type != objects.TypeRun {
		return s.PutBatch(ctx, []*objects.Object{o})
	}
	if _, err := s.WriteAppendPack(ctx, []*objects.Object{o}, *s.last); err != nil {
		return err
	}
	*s.last = o.ID
	return nil
}

func (s appendPacks) PutBatch(ctx context.Context, objs []*objects.Object) error {
	_, err := s.WritePack(ctx, objs, pack.Options{})
	return err
}

// Corrupt damages id inside the packs holding it.
func (s appendPacks) Corrupt(id objects.OID) error { return pack.CorruptPacked(s.Store, id) }

func TestPackStoreSuiteAppendDeltas(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		s, err := pack.Open(t.TempDir(), a)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return appendPacks{Store: s, last: new(objects.OID)}
	})
}
