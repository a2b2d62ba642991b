package plumbing

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
	"github.com/tinehq/tine/objects/pack"
)

// TestObjectsListByType: every object store a repository hands out (the
// combined store of a blake3 repository, the loose-writing one of a
// sha256 repository, the catalog's read-through source) lists by type
// itself, so the catalog and gc's reachability never enumerate the whole
// store to find its attestations, and lists what List lists, packed and
// loose objects alike.
func TestObjectsListByType(t *testing.T) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			r := newRepo(t, a)
			e := putEvent(t, r, "packed")
			att := jsonObject(t, a, objects.TypeAttestation, `{"claim":{},"target_id":"`+e.String()+`"}`)
			if _, err := r.Packs().WritePack(t.Context(), []*objects.Object{att}, pack.Options{}); err != nil {
				t.Fatal(err)
			}
			put(t, r, jsonObject(t, a, objects.TypeAnnotation, `{"target_id":"`+e.String()+`"}`))
			stores := map[string]objects.Store{
				"Objects":          r.Objects(),
				"OpenIndexReading": recentSource{recent: memory.New(a), Store: r.Objects()},
			}
			for name, s := range stores {
				if _, ok := s.(objects.TypeLister); !ok {
					t.Fatalf("%s (%T) does not list by type", name, s)
				}
				types := []objects.Type{objects.TypeAnnotation, objects.TypeAttestation}
				var got, want []objects.OID
				if err := objects.ListTypes(t.Context(), s, types, func(id objects.OID) error { got = append(got, id); return nil }); err != nil {
					t.Fatal(err)
				}
				if err := s.List(t.Context(), func(id objects.OID) error {
					if slices.Contains(types, id.Type) {
						want = append(want, id)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if len(want) != 2 || !slices.Equal(got, want) {
					t.Fatalf("%s lists %v by type, %v in full", name, got, want)
				}
			}
		})
	}
}

// TestOpenHandleListsAfterAnotherHandlesGC: a handle that has already
// listed (a `tine view` serving the catalog) lists the attestations and
// annotations another process's gc moved from loose files into a pack it
// has not seen, so its catalog keeps them. Its pack list predated the gc,
// and listing the packs before the loose files missed them in both.
func TestOpenHandleListsAfterAnotherHandlesGC(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		packsOn(t, r)
		ctx := t.Context()
		run, _ := putChainRun(t, r, "main", 2)
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); err != nil {
			t.Fatal(err)
		}
		att := put(t, r, jsonObject(t, r.Algo(), objects.TypeAttestation, fmt.Sprintf(
			`{"claim":{"kind":"evaluation","scores":{"acc":0.75}},"evidence_ids":[],"signature":null,"signer":"ci","target_id":%q}`, run)))
		ann := put(t, r, jsonObject(t, r.Algo(), objects.TypeAnnotation, fmt.Sprintf(`{"note":"kept","target_id":%q}`, run)))
		c, _, err := OpenIndex(r).Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := c.Counts()
		if want.Attestations != 1 || want.Annotations != 1 {
			t.Fatalf("catalog before gc: %+v", want)
		}
		other, err := Open(r.Root()) // another process
		if err != nil {
			t.Fatal(err)
		}
		res, err := GC(ctx, other, GCOptions{})
		other.Close()
		if err != nil || res.LooseRemoved == 0 {
			t.Fatalf("gc: %+v, %v", res, err)
		}
		var got []objects.OID
		types := []objects.Type{objects.TypeAnnotation, objects.TypeAttestation}
		if err := objects.ListTypes(ctx, r.Objects(), types, func(id objects.OID) error { got = append(got, id); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []objects.OID{ann, att}) {
			t.Fatalf("the old handle lists %v by type after the gc, want %v", got, []objects.OID{ann, att})
		}
		c, rep, err := OpenIndex(r).Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.Counts() != want || rep.Action != index.ActionFresh {
			t.Fatalf("catalog of the old handle after the gc: %s with %+v, want %s with %+v", rep.Action, c.Counts(), index.ActionFresh, want)
		}
	})
}
