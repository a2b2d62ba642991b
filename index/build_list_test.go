package index

import (
	"context"
	"errors"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// errFullListing is what typedOnly's List returns.
var errFullListing = errors.New("the catalog listed every object of the store")

// typedOnly is a store that can list by type but refuses to list every
// object: a catalog over it shows that it never enumerates the events and
// blobs it has no use for.
type typedOnly struct{ *loose.Store }

func (typedOnly) List(context.Context, func(objects.OID) error) error { return errFullListing }

// listOnly is a Source without a listing by type, so the catalog takes
// objects.ListTypes' fallback over its List.
type listOnly struct {
	objects.Getter
	l objects.Lister
}

func (s listOnly) List(ctx context.Context, fn func(objects.OID) error) error {
	return s.l.List(ctx, fn)
}

// TestCatalogListsOnlyDescribers: building, then refreshing, a catalog
// lists the attestations and annotations by type, never the whole store,
// where the store can (objects.TypeLister), and finds the same with a
// store that only lists everything.
func TestCatalogListsOnlyDescribers(t *testing.T) {
	f := newFixture(t, objects.BLAKE3)
	want := Counts{Refs: 4, Runs: 2, Attestations: 4, Evaluations: 3, Annotations: 1, EvidenceRows: 3, Events: 3}
	for _, tc := range []struct {
		name string
		src  Source
	}{
		{"by type", typedOnly{f.store}},
		{"full listing", listOnly{Getter: f.store, l: f.store}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := New(t.TempDir(), f.algo, tc.src, f.refs, Options{})
			for _, action := range []string{ActionRebuilt, ActionFresh} {
				c, rep, err := ix.Catalog(f.ctx)
				if err != nil {
					t.Fatalf("catalog (%s): %v", action, err)
				}
				if rep.Action != action || c.Counts() != want {
					t.Fatalf("catalog: %s with counts %+v; want %s with %+v", rep.Action, c.Counts(), action, want)
				}
			}
			f.evaluate(f.main, tc.name, score("accuracy", 0.7)) // a new oid per subtest
			c, rep, err := ix.Catalog(f.ctx)
			if err != nil {
				t.Fatalf("catalog after a new evaluation: %v", err)
			}
			want.Attestations++
			want.Evaluations++
			if rep.Action != ActionUpdated || c.Counts() != want {
				t.Fatalf("catalog after a new evaluation: %s with counts %+v; want %s with %+v", rep.Action, c.Counts(), ActionUpdated, want)
			}
		})
	}
}
