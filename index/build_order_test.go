package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// readOrdered is a store with its own read order (objects.ReadOrderer):
// the reverse of the ids' order. It records the runs it is asked for.
type readOrdered struct {
	*loose.Store
	runs []objects.OID
}

func (s *readOrdered) SortForRead(ids []objects.OID) {
	slices.SortFunc(ids, func(a, b objects.OID) int { return compareOID(b, a) })
}

func (s *readOrdered) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if id.Type == objects.TypeRun {
		s.runs = append(s.runs, id)
	}
	return s.Store.Get(ctx, id)
}

func (s *readOrdered) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if id.Type == objects.TypeRun {
		s.runs = append(s.runs, id)
	}
	return s.Store.GetUnparsed(ctx, id)
}

// TestCatalogReadsRunsInStoreOrder: the runs a catalog build indexes are
// read in the order the store gives (a storage pack's write order, where
// a delta's base comes first), while the catalog itself, byte for byte, is
// what a store without an order builds.
func TestCatalogReadsRunsInStoreOrder(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
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

	src := &readOrdered{Store: r.store}
	ix := New(t.TempDir(), r.algo, src, r.refs, Options{})
	if _, _, err := ix.Catalog(r.ctx); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(runs)
	src.SortForRead(want)
	var got []objects.OID
	for _, id := range src.runs {
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
}
