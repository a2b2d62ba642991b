package combined_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestPutBatchBlocks stores objects that arrived in raw blocks: a block
// whose objects are all new is written as it is, a block holding an
// object the store has loose is not (its other objects are stored as
// PutBatch stores them), and every object reads back once, byte for byte,
// from a pack that verifies.
func TestPutBatchBlocks(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	src := newCombined(t, a)
	var objs []*objects.Object
	for i := range 400 {
		objs = append(objs, objects.NewBlob(a, []byte(fmt.Sprintf(`{"kind":"model","label":"step %d","note":"raw blocks"}`, i))))
	}
	if err := src.PutBatch(ctx, objs); err != nil {
		t.Fatal(err)
	}
	ids := make([]objects.OID, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	blocks, _, err := src.Packs().RawBlocks(ctx, ids)
	if err != nil || len(blocks) < 3 {
		t.Fatalf("%d blocks, %v", len(blocks), err)
	}
	dst := newCombined(t, a)
	held := blocks[1].IDs[0]
	for _, o := range objs {
		if o.ID == held {
			if err := dst.Put(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := dst.PutBatchBlocks(ctx, objs, blocks); err != nil {
		t.Fatal(err)
	}
	names, err := dst.Packs().Packs()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 {
		t.Fatalf("packs %v", names)
	}
	n, err := dst.Packs().Verify(ctx, names[0])
	if err != nil || n != len(objs)-1 {
		t.Fatalf("verify: %d objects, %v; want %d", n, err, len(objs)-1)
	}
	packed, err := os.ReadFile(filepath.Join(dst.Packs().Dir(), names[0]+".pack"))
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		if kept := bytes.Contains(packed, b.Payload); kept != (i != 1) {
			t.Fatalf("block %d kept as it arrived: %v", i, kept)
		}
	}
	for _, o := range objs {
		got, err := dst.Get(ctx, o.ID)
		if err != nil || string(got.Stored()) != string(o.Stored()) {
			t.Fatalf("%s: %v", o.ID, err)
		}
	}
}
