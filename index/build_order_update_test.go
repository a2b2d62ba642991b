package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestCatalogUpdateReadsRunsInStoreOrder: an update of a catalog that
// already exists (a layer, or a base written from one) reads the runs it
// lacks in the store's read order too, as a build from nothing does: a
// catalog made before a 1,000-branch loop is the usual case. What it
// writes is what a store without an order makes, byte for byte.
func TestCatalogUpdateReadsRunsInStoreOrder(t *testing.T) {
	for _, layers := range []bool{false, true} {
		t.Run(fmt.Sprintf("layers=%v", layers), func(t *testing.T) {
			if layers {
				keepLayers(t)
			}
			r := newTestRepo(t, objects.BLAKE3)
			first := r.run([]objects.OID{r.event("e", "d")})
			r.setRef("heads/main", first)
			r.catalog()
			before := t.TempDir()
			copyCatalogDir(t, r.root, before)

			var evs []objects.OID
			var runs []objects.OID
			for i := range 12 {
				evs = append(evs, r.event(fmt.Sprintf("e%d", i), fmt.Sprintf("d%d", i)))
				run := r.run(slices.Clone(evs))
				runs = append(runs, run)
				r.setRef(fmt.Sprintf("heads/r%02d", i), run)
			}
			r.catalog()
			plain := r.merged()

			// The same update again, from the catalog as it was, through
			// a store with its own order.
			copyCatalogDir(t, before, r.root)
			src := &readOrdered{Store: r.store}
			ix := New(r.root, r.algo, src, r.refs, Options{})
			_, rep, err := ix.Catalog(r.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Action != ActionUpdated {
				t.Fatalf("action %v, want an update", rep.Action)
			}
			want := slices.Clone(runs)
			src.SortForRead(want)
			var got []objects.OID
			for _, id := range src.runs {
				if id == first {
					continue
				}
				if len(got) == 0 || got[len(got)-1] != id {
					got = append(got, id)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("runs read in the order\n%v\nwant the store's order\n%v", got, want)
			}
			st, err := ix.readStack()
			if err != nil || st == nil {
				t.Fatalf("read catalog: %v", err)
			}
			if string(encode(st.d)) != string(plain) {
				t.Fatal("a store's read order changed the catalog's bytes")
			}
		})
	}
}

// copyCatalogDir replaces the catalog directory under to with the one
// under from (regular files only).
func copyCatalogDir(t *testing.T, from, to string) {
	t.Helper()
	src, dst := filepath.Join(from, filepath.FromSlash(Dir)), filepath.Join(to, filepath.FromSlash(Dir))
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
