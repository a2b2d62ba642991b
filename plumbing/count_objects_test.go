package plumbing

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestCountObjectsPackedByType packs known objects, packs them again with
// one more (so two packs hold the same objects) and leaves that one loose
// too: every packed object is counted once, under its type, with its
// envelope bytes, and the total counts each object once.
func TestCountObjectsPackedByType(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	want := map[objects.Type]TypeCount{}
	add := func(o *objects.Object) {
		put(t, r, o)
		c := want[o.ID.Type]
		c.Count++
		c.Size += int64(len(o.Stored()))
		want[o.ID.Type] = c
	}
	var evs []objects.OID
	for _, label := range []string{"a", "b", "c"} {
		ev := jsonObject(t, r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":%q,"parent_ids":%s}`, label, oidList(evs[max(0, len(evs)-1):])))
		add(ev)
		evs = append(evs, ev.ID)
	}
	add(chainRun(t, r.Algo(), evs))
	add(objects.NewBlob(r.Algo(), []byte("first blob")))
	add(objects.NewBlob(r.Algo(), []byte("second blob")))
	if _, err := GC(ctx, r, GCOptions{}); err != nil {
		t.Fatal(err)
	}
	late := objects.NewBlob(r.Algo(), []byte("late blob"))
	add(late)
	if _, err := Repack(ctx, r, RepackOptions{}); err != nil { // keeps the first pack and the loose copy
		t.Fatal(err)
	}
	res, err := CountObjects(ctx, r, CountObjectsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packs != 2 || res.InPack != 7 || res.Total != 7 || res.Count != 1 {
		t.Fatalf("packs %d, in pack %d, total %d, loose %d; want 2, 7, 7, 1", res.Packs, res.InPack, res.Total, res.Count)
	}
	for _, typ := range objects.Types {
		if got := res.InPackByType[typ]; got != want[typ] {
			t.Errorf("%s: packed %+v, want %+v", typ, got, want[typ])
		}
	}
	if res.ByType[objects.TypeBlob] != (TypeCount{Count: 1, Size: int64(len(late.Stored()))}) {
		t.Errorf("loose blobs %+v, want the late blob only", res.ByType[objects.TypeBlob])
	}
}

// TestCountObjectsLooseBesidePacks counts an object loose and packed once in
// the total, and a loose-only one beside them.
func TestCountObjectsLooseBesidePacks(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	put(t, r, objects.NewBlob(r.Algo(), []byte("packed")))
	if _, err := GC(ctx, r, GCOptions{}); err != nil {
		t.Fatal(err)
	}
	put(t, r, objects.NewBlob(r.Algo(), []byte("loose")))
	res, err := CountObjects(ctx, r, CountObjectsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.InPack != 1 || res.Count != 1 || res.Total != 2 || res.InPackByType[objects.TypeBlob].Count != 1 {
		t.Fatalf("in pack %d, loose %d, total %d, packed blobs %d; want 1, 1, 2, 1", res.InPack, res.Count, res.Total, res.InPackByType[objects.TypeBlob].Count)
	}
}
