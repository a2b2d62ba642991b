package objectstest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// listOnly hides every method of a store but List, so objects.ListTypes
// takes its fallback (filtering List) over it.
type listOnly struct{ l objects.Lister }

func (s listOnly) List(ctx context.Context, fn func(objects.OID) error) error {
	return s.l.List(ctx, fn)
}

// typeSets are the type selections the suite lists by: each type alone,
// the catalog's pair, an unordered set with a repetition, every type, none
// and one that is no type.
var typeSets = [][]objects.Type{
	{objects.TypeAnnotation}, {objects.TypeAttestation}, {objects.TypeBlob}, {objects.TypeEvent}, {objects.TypeRun},
	{objects.TypeAnnotation, objects.TypeAttestation},
	{objects.TypeRun, objects.TypeAnnotation, objects.TypeRun, objects.TypeBlob},
	objects.Types,
	nil,
	{"commit", objects.TypeEvent},
}

// listTypes returns what objects.ListTypes(l, types) enumerates.
func listTypes(t *testing.T, l objects.Lister, types []objects.Type) []objects.OID {
	t.Helper()
	var ids []objects.OID
	if err := objects.ListTypes(t.Context(), l, types, func(id objects.OID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatalf("ListTypes(%v): %v", types, err)
	}
	return ids
}

// testListTypes: a typed listing is the full listing with the other types
// left out, in the same order, whether the store lists by type itself
// (objects.TypeLister) or objects.ListTypes filters its List.
func testListTypes(t *testing.T, s objects.Store) {
	objs := append(Samples(t, s.Algo()), Blobs(s.Algo(), "types", 40)...)
	put(t, s, objs...)
	all := list(t, s)
	_, native := s.(objects.TypeLister)
	for _, types := range typeSets {
		want := slices.DeleteFunc(slices.Clone(all), func(id objects.OID) bool { return !slices.Contains(types, id.Type) })
		if got := listTypes(t, s, types); !slices.Equal(got, want) {
			t.Fatalf("ListTypes(%v) (store's own: %v) = %d ids %v; want %d ids %v", types, native, len(got), got, len(want), want)
		}
		if got := listTypes(t, listOnly{s}, types); !slices.Equal(got, want) {
			t.Fatalf("ListTypes(%v) over List = %d ids %v; want %d ids %v", types, len(got), got, len(want), want)
		}
	}
}

// testListTypesStops: a typed listing stops at the callback's first error
// and returns it, and refuses a cancelled context, like List.
func testListTypesStops(t *testing.T, s objects.Store) {
	put(t, s, Blobs(s.Algo(), "typed stop", 10)...)
	put(t, s, Samples(t, s.Algo())...)
	for _, l := range []objects.Lister{s, listOnly{s}} {
		stop := errors.New("stop here")
		calls := 0
		err := objects.ListTypes(t.Context(), l, []objects.Type{objects.TypeBlob}, func(objects.OID) error {
			calls++
			if calls == 3 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || calls != 3 {
			t.Fatalf("ListTypes (%T) with a failing callback: %v after %d calls; want the callback's error after 3", l, err, calls)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err = objects.ListTypes(ctx, l, []objects.Type{objects.TypeBlob}, func(objects.OID) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ListTypes (%T) with a cancelled context: %v", l, err)
		}
	}
}
