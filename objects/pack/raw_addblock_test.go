package pack

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// storedBlockOf returns a stored raw block holding the envelopes of objs.
func storedBlockOf(objs []*objects.Object) RawBlock {
	b := RawBlock{Kind: KindStored, IDs: make([]objects.OID, len(objs)), Lengths: make([]uint32, len(objs))}
	for i, o := range objs {
		env := o.Stored()
		b.Payload = append(b.Payload, env...)
		b.IDs[i], b.Lengths[i] = o.ID, uint32(len(env))
	}
	b.RawLen = uint32(len(b.Payload))
	return b
}

// tinyBlobs returns n distinct small blobs.
func tinyBlobs(a objects.Algo, n int) []*objects.Object {
	objs := make([]*objects.Object, n)
	for i := range objs {
		objs[i] = objects.NewBlob(a, fmt.Appendf(nil, "%d", i))
	}
	return objs
}

// TestAddBlockRefusesRepeatedObject: a block naming one object twice is
// refused before anything is written, wherever the repeat sits.
func TestAddBlockRefusesRepeatedObject(t *testing.T) {
	a := objects.SHA256
	objs := tinyBlobs(a, 5)
	for _, at := range []int{1, 4} {
		dup := append(append([]*objects.Object{}, objs...), objs[at])
		b := storedBlockOf(dup)
		w, err := NewWriter(t.TempDir(), a, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddBlock(&b); !errors.Is(err, ErrBadRawBlock) {
			t.Fatalf("AddBlock of a block naming object %d twice: %v", at, err)
		}
		if len(w.entries) != 0 || len(w.seen) != 0 {
			t.Fatalf("a refused block left %d entries, %d seen", len(w.entries), len(w.seen))
		}
		good := storedBlockOf(objs)
		if err := w.AddBlock(&good); err != nil {
			t.Fatalf("AddBlock after a refused one: %v", err)
		}
		w.Abort()
	}
}

// BenchmarkAddBlockManyObjects adds one block of 40,000 tiny blobs, about
// the most MaxRawBlock holds (a frame carries up to 50,000 objects, and a
// hostile peer may put them in one block): the check for an object named
// twice in the block must not cost the square of its objects.
func BenchmarkAddBlockManyObjects(b *testing.B) {
	a := objects.SHA256
	objs := tinyBlobs(a, 40000)
	blk := storedBlockOf(objs)
	if err := blk.CheckShape(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWriter(b.TempDir(), a, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.AddBlock(&blk); err != nil {
			b.Fatal(err)
		}
		w.Abort()
	}
}
