package objectstest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// Run runs the shared store suite. newStore must return a new, empty store
// on each call; the suite uses the store's own hash profile.
func Run(t *testing.T, newStore func(t *testing.T) objects.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, objects.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"IdempotentPut", testIdempotentPut},
		{"Has", testHas},
		{"NotFound", testNotFound},
		{"WrongAlgo", testWrongAlgo},
		{"ListSortedComplete", testList},
		{"ListStops", testListStops},
		{"ListTypes", testListTypes},
		{"ListTypesStops", testListTypesStops},
		{"Isolation", testIsolation},
		{"Batch", testBatch},
		{"Concurrent", testConcurrent},
		{"Corruption", testCorruption},
		{"Cancelled", testCancelled},
		{"RunChain", testRunChain},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// RunAlgos runs the suite once per hash profile.
func RunAlgos(t *testing.T, newStore func(t *testing.T, a objects.Algo) objects.Store) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			Run(t, func(t *testing.T) objects.Store {
				s := newStore(t, a)
				if s.Algo() != a {
					t.Fatalf("store algo = %s, want %s", s.Algo(), a)
				}
				return s
			})
		})
	}
}

// put stores objs or fails the test.
func put(t *testing.T, s objects.Store, objs ...*objects.Object) {
	t.Helper()
	for _, o := range objs {
		if err := s.Put(t.Context(), o); err != nil {
			t.Fatalf("Put(%s): %v", o.ID, err)
		}
	}
}

// mustGet reads id and checks it matches want byte for byte.
func mustGet(t *testing.T, s objects.Getter, want *objects.Object) {
	t.Helper()
	got, err := s.Get(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("Get(%s): %v", want.ID, err)
	}
	if got.ID != want.ID || got.Type != want.Type || got.Schema != want.Schema {
		t.Fatalf("Get(%s) = %s %s schema %d, want %s %s schema %d",
			want.ID, got.ID, got.Type, got.Schema, want.ID, want.Type, want.Schema)
	}
	if !bytes.Equal(got.Body, want.Body) || !bytes.Equal(got.Stored(), want.Stored()) {
		t.Fatalf("Get(%s): body %q, want %q", want.ID, got.Body, want.Body)
	}
}

// list returns every id the store enumerates.
func list(t *testing.T, s objects.Store) []objects.OID {
	t.Helper()
	var ids []objects.OID
	if err := s.List(t.Context(), func(id objects.OID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatalf("List: %v", err)
	}
	return ids
}

func testRoundTrip(t *testing.T, s objects.Store) {
	samples := Samples(t, s.Algo())
	put(t, s, samples...)
	seen := map[objects.Type]bool{}
	for _, o := range samples {
		mustGet(t, s, o)
		seen[o.Type] = true
	}
	if len(seen) != len(objects.Types) {
		t.Fatalf("samples cover %d types, want %d", len(seen), len(objects.Types))
	}
}

func testIdempotentPut(t *testing.T, s objects.Store) {
	samples := Samples(t, s.Algo())
	put(t, s, samples...)
	put(t, s, samples...)
	if got := list(t, s); len(got) != len(samples) {
		t.Fatalf("after putting %d objects twice, List has %d", len(samples), len(got))
	}
	for _, o := range samples {
		mustGet(t, s, o)
	}
}

func testHas(t *testing.T, s objects.Store) {
	ctx := t.Context()
	o := Samples(t, s.Algo())[1]
	if ok, err := s.Has(ctx, o.ID); err != nil || ok {
		t.Fatalf("Has before Put = %v, %v; want false, nil", ok, err)
	}
	put(t, s, o)
	if ok, err := s.Has(ctx, o.ID); err != nil || !ok {
		t.Fatalf("Has after Put = %v, %v; want true, nil", ok, err)
	}
}

func testNotFound(t *testing.T, s objects.Store) {
	ctx := t.Context()
	present := objects.NewBlob(s.Algo(), []byte("present"))
	put(t, s, present)
	absent := objects.NewBlob(s.Algo(), []byte("absent")).ID
	// The same digest under another type names another object.
	sameDigest := objects.OID{Type: objects.TypeEvent, Algo: s.Algo(), Digest: present.ID.Digest}
	for _, id := range []objects.OID{absent, sameDigest} {
		o, err := s.Get(ctx, id)
		if !errors.Is(err, objects.ErrNotFound) || o != nil {
			t.Fatalf("Get(%s) = %v, %v; want ErrNotFound", id, o, err)
		}
		if !strings.Contains(err.Error(), id.String()) {
			t.Fatalf("error %q does not name %s", err, id)
		}
	}
}

func testWrongAlgo(t *testing.T, s objects.Store) {
	ctx := t.Context()
	mine := objects.NewBlob(s.Algo(), []byte("x"))
	put(t, s, mine)
	other := objects.NewBlob(otherAlgo(s.Algo()), []byte("x"))
	if err := s.Put(ctx, other); !errors.Is(err, objects.ErrAlgoMismatch) {
		t.Fatalf("Put of a %s object into a %s store: %v; want ErrAlgoMismatch", other.ID.Algo, s.Algo(), err)
	}
	// The other profile's name for a digest the store holds is still absent.
	alias := objects.OID{Type: mine.ID.Type, Algo: other.ID.Algo, Digest: mine.ID.Digest}
	if ok, err := s.Has(ctx, alias); err != nil || ok {
		t.Fatalf("Has(%s) = %v, %v; want false, nil", alias, ok, err)
	}
	if _, err := s.Get(ctx, alias); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get(%s): %v; want ErrNotFound", alias, err)
	}
}

func testList(t *testing.T, s objects.Store) {
	if got := list(t, s); len(got) != 0 {
		t.Fatalf("empty store lists %v", got)
	}
	objs := append(Samples(t, s.Algo()), Blobs(s.Algo(), "list", 300)...)
	put(t, s, objs...)
	got := list(t, s)
	want := map[objects.OID]bool{}
	for _, o := range objs {
		want[o.ID] = true
	}
	if len(got) != len(want) {
		t.Fatalf("List returned %d ids, want %d", len(got), len(want))
	}
	for i, id := range got {
		if !want[id] {
			t.Fatalf("List returned unknown id %s", id)
		}
		if i > 0 && got[i-1].Compare(id) >= 0 {
			t.Fatalf("List not sorted: %s before %s", got[i-1], id)
		}
	}
}

func testListStops(t *testing.T, s objects.Store) {
	put(t, s, Blobs(s.Algo(), "stop", 10)...)
	stop := errors.New("stop here")
	calls := 0
	err := s.List(t.Context(), func(objects.OID) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Fatalf("List with a failing callback: %v after %d calls; want the callback's error after 3", err, calls)
	}
}
