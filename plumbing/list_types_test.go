package plumbing

import (
	"slices"
	"testing"

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
