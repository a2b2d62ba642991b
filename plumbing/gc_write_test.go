package plumbing

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// gcOrderBlobs returns n distinct blobs labelled label.
func gcOrderBlobs(a objects.Algo, label string, n int) []*objects.Object {
	out := make([]*objects.Object, n)
	for i := range out {
		out[i] = objects.NewBlob(a, fmt.Appendf(nil, "%s %d: some text so the blob is not tiny", label, i))
	}
	return out
}

// packOrder returns the ids of the pack name in pack order.
func packOrder(t *testing.T, r *Repo, name string) []objects.OID {
	t.Helper()
	var ids []objects.OID
	err := r.Packs().Walk(context.Background(), name, func(id objects.OID, _ *objects.Object, err error) error {
		if err != nil {
			t.Fatalf("walk %s: %v", name, err)
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// setTime sets a file's modification time.
func setTime(t *testing.T, path string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func TestGCWritesLooseObjectsInWriteOrder(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	defer r.Close()
	ctx := context.Background()
	objs := gcOrderBlobs(r.Algo(), "loose", 40)
	base := time.Now().Add(-time.Hour)
	for i, o := range objs {
		if err := r.Loose().Put(ctx, o); err != nil {
			t.Fatal(err)
		}
		// Written in slice order, whatever their oids.
		p, err := r.Loose().Path(o.ID)
		if err != nil {
			t.Fatal(err)
		}
		setTime(t, p, base.Add(time.Duration(i)*time.Second))
	}
	res, err := GC(ctx, r, GCOptions{})
	if err != nil || res.Objects != len(objs) {
		t.Fatalf("gc: %+v, %v", res, err)
	}
	got := packOrder(t, r, res.Pack)
	for i, o := range objs {
		if got[i] != o.ID {
			t.Fatalf("pack position %d holds %s, want %s (write order)", i, got[i], o.ID)
		}
	}
	mustFsckClean(t, r)
}

func TestRepackKeepsPackAgeThenPackOrder(t *testing.T) {
	r := packsOn(t, newRepo(t, objects.SHA256))
	defer r.Close()
	ctx := context.Background()
	older, newer := gcOrderBlobs(r.Algo(), "older", 30), gcOrderBlobs(r.Algo(), "newer", 30)
	loose := gcOrderBlobs(r.Algo(), "loose", 5)
	// The newer pack is written first; its file time says it is newer.
	nameNew, err := r.Packs().WritePack(ctx, newer, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nameOld, err := r.Packs().WritePack(ctx, append(older, newer[3]), pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	dir := r.Packs().Dir()
	setTime(t, filepath.Join(dir, nameOld+".pack"), base)
	setTime(t, filepath.Join(dir, nameNew+".pack"), base.Add(2*time.Minute))
	for _, o := range loose {
		if err := r.Loose().Put(ctx, o); err != nil {
			t.Fatal(err)
		}
		p, _ := r.Loose().Path(o.ID)
		setTime(t, p, base.Add(time.Minute)) // between the packs: ties go by oid
	}
	res, err := Repack(ctx, r, RepackOptions{Delete: true})
	if err != nil {
		t.Fatalf("repack: %v", err)
	}
	var want []objects.OID
	for _, o := range append(older, newer[3]) {
		want = append(want, o.ID)
	}
	looseIDs := make([]objects.OID, len(loose))
	for i, o := range loose {
		looseIDs[i] = o.ID
	}
	sortEnum(looseIDs)
	want = append(want, looseIDs...)
	for i, o := range newer {
		if i != 3 { // already written with the older pack
			want = append(want, o.ID)
		}
	}
	got := packOrder(t, r, res.Pack)
	if len(got) != len(want) || res.Objects != len(want) {
		t.Fatalf("new pack holds %d objects (result %d), want %d", len(got), res.Objects, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pack position %d holds %s, want %s", i, got[i], want[i])
		}
	}
	mustFsckClean(t, r)
}

// sortEnum sorts ids in enumeration order.
func sortEnum(ids []objects.OID) { slices.SortFunc(ids, enumCompare) }
