package combined_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/objectstest"
	"github.com/tinehq/tine/objects/pack"
)

// reloadingList is a combined store whose typed listing re-scans the
// packs (ListTypesReloading), as a repository's store lists.
type reloadingList struct{ *combined.Store }

func (s reloadingList) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	return s.ListTypesReloading(ctx, types, fn)
}

// TestCombinedStoreSuiteReloadingList runs the shared suite, whose typed
// listings then go through ListTypesReloading, over loose objects and
// packed batches.
func TestCombinedStoreSuiteReloadingList(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		return reloadingList{newCombined(t, a)}
	})
}

// TestCombinedListTypesReloadingSeesOtherHandlesPack: a handle that has
// listed once lists, by type, objects another handle (another process's
// gc) has since packed and whose loose files it removed, each once and in
// enumeration order; ListTypes, which takes the packs this handle knows,
// misses them.
func TestCombinedListTypesReloadingSeesOtherHandlesPack(t *testing.T) {
	ctx := context.Background()
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			c := newCombined(t, a)
			atts := attestations(t, a, 6)
			blobs := objectstest.Blobs(a, "reload", 4)
			if _, err := c.Packs().WritePack(ctx, slices.Concat(atts[:2], blobs[:2]), pack.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := c.Loose().PutBatch(ctx, slices.Concat(atts[2:], blobs[2:])); err != nil {
				t.Fatal(err)
			}
			types := []objects.Type{objects.TypeAttestation}
			want := ofTypes(atts, types)
			if got := collect(t, func(fn func(objects.OID) error) error { return c.ListTypes(ctx, types, fn) }); !slices.Equal(got, want) {
				t.Fatalf("ListTypes before = %v; want %v", got, want)
			}
			// Another handle packs atts[2:5] (atts[1] again too) and removes
			// their loose files, as gc does: pack committed first.
			dir := c.Loose().Dir()
			ps, err := pack.Open(filepath.Join(dir, pack.Dir), a)
			if err != nil {
				t.Fatal(err)
			}
			defer ps.Close()
			if _, err := ps.WritePack(ctx, atts[1:5], pack.Options{}); err != nil {
				t.Fatal(err)
			}
			ls, err := loose.Open(dir, a)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range atts[2:5] {
				p, err := ls.Path(o.ID)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
			got := collect(t, func(fn func(objects.OID) error) error { return c.ListTypes(ctx, types, fn) })
			if len(got) != len(want)-3 {
				t.Fatalf("ListTypes with the old pack list = %d ids; the test expects it to miss the 3 moved", len(got))
			}
			got = collect(t, func(fn func(objects.OID) error) error { return c.ListTypesReloading(ctx, types, fn) })
			if !slices.Equal(got, want) {
				t.Fatalf("ListTypesReloading = %d ids %v; want %d %v", len(got), got, len(want), want)
			}
		})
	}
}
