package combined_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/objectstest"
	"github.com/tinehq/tine/objects/pack"
)

// collect returns what list enumerates.
func collect(t *testing.T, list func(func(objects.OID) error) error) []objects.OID {
	t.Helper()
	var ids []objects.OID
	if err := list(func(id objects.OID) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

// ofTypes returns the ids of objs whose type is one of types, each once,
// in enumeration order.
func ofTypes(objs []*objects.Object, types []objects.Type) []objects.OID {
	var ids []objects.OID
	for _, o := range objs {
		if slices.Contains(types, o.ID.Type) {
			ids = append(ids, o.ID)
		}
	}
	slices.SortFunc(ids, objects.OID.Compare)
	return slices.Compact(ids)
}

// attestations returns n distinct attestations (a typed listing's usual
// quarry) of profile a.
func attestations(t *testing.T, a objects.Algo, n int) []*objects.Object {
	t.Helper()
	out := make([]*objects.Object, n)
	for i := range out {
		o, err := objects.NewJSONObject(a, objects.TypeAttestation, 1, objects.ObjectValue(
			objects.Member{Key: "claim", Value: objects.ObjectValue(objects.Member{Key: "n", Value: objects.Int(int64(i))})}))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = o
	}
	return out
}

// TestCombinedListTypesOverlap: objects of every type spread over two
// packs and loose files, some in both packs, some both packed and loose,
// are listed by type exactly once each, in enumeration order, as the full
// listing filtered.
func TestCombinedListTypesOverlap(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	c := newCombined(t, a)
	samples := objectstest.Samples(t, a)
	blobs := objectstest.Blobs(a, "overlap", 30)
	atts := attestations(t, a, 12)
	all := slices.Concat(samples, blobs, atts)
	packA := slices.Concat(samples[:3], blobs[:20], atts[:8])
	packB := slices.Concat(samples[2:], blobs[10:25], atts[4:10]) // overlaps packA
	looseObjs := slices.Concat(samples[1:2], samples[4:], blobs[15:], atts[6:])
	for _, objs := range [][]*objects.Object{packA, packB} {
		if _, err := c.Packs().WritePack(ctx, objs, pack.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Loose().PutBatch(ctx, looseObjs); err != nil {
		t.Fatal(err)
	}
	whole := collect(t, func(fn func(objects.OID) error) error { return c.List(ctx, fn) })
	if want := ofTypes(all, objects.Types); !slices.Equal(whole, want) {
		t.Fatalf("List = %d ids, want %d distinct in enumeration order", len(whole), len(want))
	}
	for _, types := range [][]objects.Type{
		{objects.TypeAttestation}, {objects.TypeAnnotation, objects.TypeAttestation},
		{objects.TypeBlob, objects.TypeRun}, {objects.TypeEvent}, objects.Types,
	} {
		got := collect(t, func(fn func(objects.OID) error) error { return c.ListTypes(ctx, types, fn) })
		if want := ofTypes(all, types); !slices.Equal(got, want) {
			t.Fatalf("ListTypes(%v) = %d ids %v; want %d %v", types, len(got), got, len(want), want)
		}
		packed, err := c.Packs().SortedIDsOf(types)
		if err != nil {
			t.Fatal(err)
		}
		if want := ofTypes(slices.Concat(packA, packB), types); !slices.Equal(packed, want) {
			t.Fatalf("packs' SortedIDsOf(%v) = %d ids, want %d distinct in enumeration order", types, len(packed), len(want))
		}
	}
}

// TestCombinedListTypesDamagedPack: a pack whose index is damaged lists
// nothing by type, as it lists nothing in full, and is reported by
// Damaged; the other pack's and the loose objects are listed.
func TestCombinedListTypesDamagedPack(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	c := newCombined(t, a)
	atts := attestations(t, a, 9)
	blobs := objectstest.Blobs(a, "damage", 5)
	bad, err := c.Packs().WritePack(ctx, slices.Concat(atts[:3], blobs[:2]), pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Packs().WritePack(ctx, slices.Concat(atts[3:6], blobs[2:]), pack.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Loose().PutBatch(ctx, atts[6:]); err != nil {
		t.Fatal(err)
	}
	dir := c.Loose().Dir()
	// The index's last byte is its SHA-256 trailer's: only the index's full
	// verification, which every enumeration needs, sees the damage.
	if err := flipLastByte(filepath.Join(dir, pack.Dir, bad+".idx")); err != nil {
		t.Fatal(err)
	}
	c2 := openCombined(t, dir, a)
	types := []objects.Type{objects.TypeAttestation}
	got := collect(t, func(fn func(objects.OID) error) error { return c2.ListTypes(ctx, types, fn) })
	if want := ofTypes(atts[3:], types); !slices.Equal(got, want) {
		t.Fatalf("ListTypes over a damaged pack = %d ids %v; want the sound pack's and loose attestations, %d %v", len(got), got, len(want), want)
	}
	whole := collect(t, func(fn func(objects.OID) error) error { return c2.List(ctx, fn) })
	if want := ofTypes(slices.Concat(atts[3:], blobs[2:]), objects.Types); !slices.Equal(whole, want) {
		t.Fatalf("List over a damaged pack = %d ids; want %d", len(whole), len(want))
	}
	d, err := c2.Packs().Damaged()
	if err != nil || len(d) != 1 || d[0].Name != bad {
		t.Fatalf("Damaged = %v, %v; want %s", d, err, bad)
	}
}
