package objects

import (
	"bytes"
	"context"
	"slices"
	"testing"
)

// TestPackRoundTrip writes a pack, inspects it and installs it into an
// empty store, for both hash profiles: whole graphs and partial ones whose
// boundary the installer hands back.
func TestPackRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, a := range []Algo{SHA256, BLAKE3} {
		t.Run(string(a), func(t *testing.T) {
			g := newTPGraph(t, a)
			frame, id, err := WritePack(g.all(), nil)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := InspectPack(frame, a)
			if err != nil {
				t.Fatal(err)
			}
			if pf.ID != id {
				t.Errorf("inspect id %s, writer id %s", pf.ID, id)
			}
			want := g.all()
			slices.SortFunc(want, func(x, y *Object) int { return x.ID.Compare(y.ID) })
			for i, o := range pf.Objects {
				if o.ID != want[i].ID || !bytes.Equal(o.Stored(), want[i].Stored()) {
					t.Fatalf("objects[%d] = %s, want %s in oid order", i, o.ID, want[i].ID)
				}
			}
			s := newMapStore(a)
			got, err := InstallPack(ctx, frame, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != id || len(got.Objects) != len(want) || s.Len() != len(want) || len(got.Boundary) != 0 {
				t.Fatalf("install: id %s, %d objects, store %d, boundary %v", got.ID, len(got.Objects), s.Len(), got.Boundary)
			}
			for _, o := range want {
				back, err := s.Get(ctx, o.ID)
				if err != nil || !bytes.Equal(back.Stored(), o.Stored()) {
					t.Fatalf("stored %s: %v", o.ID, err)
				}
			}
			// Installing again is a no-op success: objects are named by content.
			if _, err := InstallPack(ctx, frame, s, nil); err != nil {
				t.Fatalf("re-install: %v", err)
			}
		})
	}
}

// TestPackRoundTripPartial packs only the run and its events: the blob is
// on the boundary, and a second pack later fills it in.
func TestPackRoundTripPartial(t *testing.T) {
	ctx := context.Background()
	for _, a := range []Algo{SHA256, BLAKE3} {
		t.Run(string(a), func(t *testing.T) {
			g := newTPGraph(t, a)
			frame, _, err := WritePack([]*Object{g.run, g.e2, g.e1}, []OID{g.blob.ID})
			if err != nil {
				t.Fatal(err)
			}
			s := newMapStore(a)
			pf, err := InstallPack(ctx, frame, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pf.Boundary, []OID{g.blob.ID}) {
				t.Fatalf("boundary %v, want the blob", pf.Boundary)
			}
			// A pack naming the now-present events from outside must still
			// declare them: the boundary is the external link set, present
			// or not; the store only makes the links resolvable.
			frame2, _, err := WritePack([]*Object{g.att, g.blob}, []OID{g.run.ID})
			if err != nil {
				t.Fatal(err)
			}
			pf2, err := InstallPack(ctx, frame2, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(pf2.Boundary) != 0 {
				t.Fatalf("boundary %v, want none: the run is present", pf2.Boundary)
			}
		})
	}
}
