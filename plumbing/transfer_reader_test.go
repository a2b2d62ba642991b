package plumbing

import (
	"fmt"
	"os"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestTransferReaderPackFirst: a transfer reader asks the packs first only
// for types without loose files when it was made; an object written loose
// afterwards is still found, and a damaged loose copy of a type that had
// loose files is reported, not read around.
func TestTransferReaderPackFirst(t *testing.T) {
	ctx := t.Context()
	r, _, err := Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var blobs []*objects.Object
	for i := range 100 {
		blobs = append(blobs, objects.NewBlob(objects.BLAKE3, fmt.Appendf(nil, "packed %d", i)))
	}
	if err := r.Objects().(objects.BatchPutter).PutBatch(ctx, blobs); err != nil {
		t.Fatal(err)
	}
	ev, err := objects.NewJSONObject(objects.BLAKE3, objects.TypeEvent, 1, objects.ObjectValue(
		objects.Member{Key: "kind", Value: objects.String("tool")}, objects.Member{Key: "label", Value: objects.String("x")},
		objects.Member{Key: "parent_ids", Value: objects.Value{Kind: objects.KindArray}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Objects().Put(ctx, ev); err != nil { // loose: an event directory exists
		t.Fatal(err)
	}
	tr := newTransferReader(r)
	if !tr.packFirst[objects.TypeBlob] || tr.packFirst[objects.TypeEvent] {
		t.Fatalf("packFirst = %v, want blobs only", tr.packFirst)
	}
	if o, err := tr.Get(ctx, blobs[7].ID); err != nil || string(o.Body) != "packed 7" {
		t.Fatalf("packed blob: %v %v", o, err)
	}
	late := objects.NewBlob(objects.BLAKE3, []byte("written loose after the reader"))
	if err := r.Objects().Put(ctx, late); err != nil {
		t.Fatal(err)
	}
	if ok, err := tr.Has(ctx, late.ID); !ok || err != nil {
		t.Fatalf("Has(late) = %v, %v", ok, err)
	}
	if o, err := tr.Get(ctx, late.ID); err != nil || o.ID != late.ID {
		t.Fatalf("Get(late) = %v, %v", o, err)
	}
	p, err := r.Loose().Path(ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Get(ctx, ev.ID); err == nil {
		t.Fatal("a damaged loose event was read without an error")
	}
}

// TestReceiverHas: packed objects are found without the loose store; a
// type that had loose files is answered exactly; an absent object is
// absent.
func TestReceiverHas(t *testing.T) {
	ctx := t.Context()
	r, _, err := Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var blobs []*objects.Object
	for i := range 100 {
		blobs = append(blobs, objects.NewBlob(objects.BLAKE3, fmt.Appendf(nil, "packed %d", i)))
	}
	if err := r.Objects().(objects.BatchPutter).PutBatch(ctx, blobs); err != nil {
		t.Fatal(err)
	}
	ev, err := objects.NewJSONObject(objects.BLAKE3, objects.TypeEvent, 1, objects.ObjectValue(
		objects.Member{Key: "kind", Value: objects.String("tool")}, objects.Member{Key: "label", Value: objects.String("x")},
		objects.Member{Key: "parent_ids", Value: objects.Value{Kind: objects.KindArray}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Objects().Put(ctx, ev); err != nil {
		t.Fatal(err)
	}
	has := ReceiverHas(r)
	for _, c := range []struct {
		id   objects.OID
		want bool
	}{
		{blobs[3].ID, true},
		{ev.ID, true},
		{objects.NewBlob(objects.BLAKE3, []byte("never stored")).ID, false},
	} {
		if got, err := has(ctx, c.id); got != c.want || err != nil {
			t.Errorf("has(%s) = %v, %v; want %v", c.id, got, err, c.want)
		}
	}
}
