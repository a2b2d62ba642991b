package objects_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/objectstest"
)

// newCombined opens a combined store over a fresh objects directory.
func newCombined(t *testing.T, a objects.Algo) *objects.CombinedStore {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "objects")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	loose, err := objects.OpenLooseStore(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	packs, err := objects.OpenPackStore(filepath.Join(dir, objects.StoragePackDir), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { packs.Close() })
	c, err := objects.NewCombinedStore(loose, packs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// looseCorrupter is a combined store whose objects are damaged in their
// loose files.
type looseCorrupter struct{ *objects.CombinedStore }

// Corrupt flips the last byte of id's loose file.
func (s looseCorrupter) Corrupt(id objects.OID) error {
	p, err := s.Loose().Path(id)
	if err != nil {
		return err
	}
	return flipLastByte(p)
}

// flipLastByte damages the last byte of a read-only file.
func flipLastByte(p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	b[len(b)-1] ^= 0xff
	if err := os.Chmod(p, 0o644); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o444)
}

func TestCombinedStoreSuite(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		return looseCorrupter{newCombined(t, a)}
	})
}

func TestCombinedStoreSuiteAllPacked(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		c := newCombined(t, a)
		c.SetMinPackBatch(1)
		return objects.NewPackingStore(c)
	})
}

func TestCombinedStoreBatchWritesOnePack(t *testing.T) {
	ctx := context.Background()
	c := newCombined(t, objects.BLAKE3)
	objs := objectstest.Blobs(objects.BLAKE3, "batch", objects.DefaultMinPackBatch+10)
	loose := objectstest.Blobs(objects.BLAKE3, "loose", 3)
	if err := c.PutBatch(ctx, loose); err != nil {
		t.Fatal(err)
	}
	if len(c.Packs().Packs()) != 0 {
		t.Fatal("a small batch wrote a pack")
	}
	if err := c.PutBatch(ctx, append(objs, loose...)); err != nil {
		t.Fatal(err)
	}
	if got := len(c.Packs().Packs()); got != 1 {
		t.Fatalf("%d packs after one large batch, want 1", got)
	}
	for _, o := range objs {
		if ok, _ := c.Loose().Has(ctx, o.ID); ok {
			t.Fatalf("%s written loose as well as packed", o.ID)
		}
		got, err := c.Get(ctx, o.ID)
		if err != nil || string(got.Body) != string(o.Body) {
			t.Fatalf("Get(%s): %v", o.ID, err)
		}
	}
	// The same batch again is already stored: no new pack.
	if err := c.PutBatch(ctx, objs); err != nil {
		t.Fatal(err)
	}
	if got := len(c.Packs().Packs()); got != 1 {
		t.Fatalf("%d packs after re-putting a stored batch, want 1", got)
	}
	n := 0
	c.List(ctx, func(objects.OID) error { n++; return nil })
	if n != len(objs)+len(loose) {
		t.Fatalf("List: %d, want %d", n, len(objs)+len(loose))
	}
}

func TestCombinedStoreAlgoMismatch(t *testing.T) {
	dir := t.TempDir()
	loose, _ := objects.OpenLooseStore(dir, objects.SHA256)
	packs, _ := objects.OpenPackStore(filepath.Join(dir, "pack"), objects.BLAKE3)
	if _, err := objects.NewCombinedStore(loose, packs); !errors.Is(err, objects.ErrAlgoMismatch) {
		t.Fatalf("combining sha256 loose with blake3 packs: %v", err)
	}
}
