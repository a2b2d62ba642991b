package combined_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/objectstest"
	"github.com/tinehq/tine/objects/pack"
)

// newCombined opens a combined store over a fresh objects directory.
func newCombined(t *testing.T, a objects.Algo) *combined.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "objects")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return openCombined(t, dir, a)
}

// openCombined opens the combined store of the objects directory dir.
func openCombined(t *testing.T, dir string, a objects.Algo) *combined.Store {
	t.Helper()
	loose, err := loose.Open(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	packs, err := pack.Open(filepath.Join(dir, pack.Dir), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { packs.Close() })
	c, err := combined.New(loose, packs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// looseCorrupter is a combined store whose objects are damaged in their
// loose files.
type looseCorrupter struct{ *combined.Store }

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

// packingStore is a combined store whose every Put writes a pack, so the
// shared suite exercises the routing of reads and writes over packs. (The
// damage of packed objects is tested over the pack store itself, in
// objects/pack, which can reach a pack's insides.)
type packingStore struct{ *combined.Store }

// Put writes o as a one-object pack (the store's minimum batch is 1).
func (s packingStore) Put(ctx context.Context, o *objects.Object) error {
	return s.PutBatch(ctx, []*objects.Object{o})
}

func TestCombinedStoreSuiteAllPacked(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		c := newCombined(t, a)
		c.SetMinPackBatch(1)
		return packingStore{c}
	})
}

func TestCombinedStoreBatchWritesOnePack(t *testing.T) {
	ctx := context.Background()
	c := newCombined(t, objects.BLAKE3)
	objs := objectstest.Blobs(objects.BLAKE3, "batch", combined.DefaultMinPackBatch+10)
	loose := objectstest.Blobs(objects.BLAKE3, "loose", 3)
	if err := c.PutBatch(ctx, loose); err != nil {
		t.Fatal(err)
	}
	if len(packNames(t, c)) != 0 {
		t.Fatal("a small batch wrote a pack")
	}
	if err := c.PutBatch(ctx, append(objs, loose...)); err != nil {
		t.Fatal(err)
	}
	if got := len(packNames(t, c)); got != 1 {
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
	if got := len(packNames(t, c)); got != 1 {
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
	loose, _ := loose.Open(dir, objects.SHA256)
	packs, _ := pack.Open(filepath.Join(dir, "pack"), objects.BLAKE3)
	if _, err := combined.New(loose, packs); !errors.Is(err, objects.ErrAlgoMismatch) {
		t.Fatalf("combining sha256 loose with blake3 packs: %v", err)
	}
}

// packNames returns the storage packs of c, failing the test on an error.
func packNames(t testing.TB, c *combined.Store) []string {
	t.Helper()
	names, err := c.Packs().Packs()
	if err != nil {
		t.Fatalf("storage packs: %v", err)
	}
	return names
}
