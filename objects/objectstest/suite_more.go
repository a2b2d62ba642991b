package objectstest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
)

func testIsolation(t *testing.T, s objects.Store) {
	ctx := t.Context()
	o := objects.NewBlob(s.Algo(), []byte("mutable"))
	put(t, s, o)
	o.Body[0] = 'X' // the caller's copy, after the put
	got, err := s.Get(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	got.Body[1] = 'Y' // a reader's copy
	mustGet(t, s, objects.NewBlob(s.Algo(), []byte("mutable")))
}

func testBatch(t *testing.T, s objects.Store) {
	ctx := t.Context()
	objs := Samples(t, s.Algo())
	objs = append(objs, objs...) // duplicates within one batch
	objs = append(objs, Blobs(s.Algo(), "batch", 50)...)
	if err := objects.PutAll(ctx, s, nil); err != nil {
		t.Fatalf("PutAll of nothing: %v", err)
	}
	if err := objects.PutAll(ctx, s, objs); err != nil {
		t.Fatalf("PutAll: %v", err)
	}
	if err := objects.PutAll(ctx, s, objs); err != nil {
		t.Fatalf("PutAll again: %v", err)
	}
	for _, o := range objs {
		mustGet(t, s, o)
	}
	if got, want := len(list(t, s)), len(objs)-len(Samples(t, s.Algo())); got != want {
		t.Fatalf("List has %d objects, want %d", got, want)
	}
	bad := []*objects.Object{objects.NewBlob(otherAlgo(s.Algo()), []byte("bad"))}
	if err := objects.PutAll(ctx, s, bad); !errors.Is(err, objects.ErrAlgoMismatch) {
		t.Fatalf("PutAll of a foreign object: %v; want ErrAlgoMismatch", err)
	}
}

func testConcurrent(t *testing.T, s objects.Store) {
	ctx := t.Context()
	const workers, own = 8, 10
	shared := Blobs(s.Algo(), "shared", 20)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			mine := Blobs(s.Algo(), fmt.Sprintf("worker %d", g), own)
			for i := range shared {
				o := shared[(i+g)%len(shared)]
				if err := s.Put(ctx, o); err != nil {
					t.Errorf("Put(%s): %v", o.ID, err)
					return
				}
				if err := s.Put(ctx, mine[i%own]); err != nil {
					t.Errorf("Put(%s): %v", mine[i%own].ID, err)
					return
				}
				// A reader racing the writers sees the object whole or not at all.
				if got, err := s.Get(ctx, o.ID); err != nil || string(got.Body) != string(o.Body) {
					t.Errorf("Get(%s) during concurrent puts: %v", o.ID, err)
					return
				}
				if ok, err := s.Has(ctx, mine[i%own].ID); err != nil || !ok {
					t.Errorf("Has(%s) = %v, %v after its put", mine[i%own].ID, ok, err)
					return
				}
			}
			if err := s.List(ctx, func(objects.OID) error { return nil }); err != nil {
				t.Errorf("List during concurrent puts: %v", err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	all := list(t, s)
	if want := len(shared) + workers*own; len(all) != want {
		t.Fatalf("List has %d objects, want %d", len(all), want)
	}
	for _, o := range shared {
		mustGet(t, s, o)
	}
}

func testCorruption(t *testing.T, s objects.Store) {
	c, ok := s.(Corrupter)
	if !ok {
		t.Skip("the store cannot be corrupted on purpose")
	}
	ctx := t.Context()
	blob := objects.NewBlob(s.Algo(), []byte("precious bytes"))
	event := Samples(t, s.Algo())[1]
	put(t, s, blob, event)
	for _, o := range []*objects.Object{blob, event} {
		if err := c.Corrupt(o.ID); err != nil {
			t.Fatalf("Corrupt(%s): %v", o.ID, err)
		}
		got, err := s.Get(ctx, o.ID)
		if err == nil || got != nil {
			t.Fatalf("Get of corrupt %s = %v, %v; want an error", o.ID, got, err)
		}
		if _, isFormat := objects.ReasonOf(err); !isFormat {
			t.Fatalf("Get of corrupt %s: %v; want a *FormatError", o.ID, err)
		}
		if !strings.Contains(err.Error(), o.ID.String()) {
			t.Fatalf("error %q does not name %s", err, o.ID)
		}
	}
	_, err := s.Get(ctx, blob.ID)
	if !objects.HasReason(err, objects.ReasonEnvelopeOidMismatch) {
		t.Fatalf("Get of a blob with a damaged body: %v; want envelope.oid-mismatch", err)
	}
	// Put of the right content must not keep the corrupt copy.
	put(t, s, blob, event)
	mustGet(t, s, blob)
	mustGet(t, s, event)
}

func testCancelled(t *testing.T, s objects.Store) {
	o := objects.NewBlob(s.Algo(), []byte("cancel"))
	put(t, s, o)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Get(ctx, o.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: %v", err)
	}
	if _, err := s.Has(ctx, o.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("Has with a cancelled context: %v", err)
	}
	if err := s.Put(ctx, objects.NewBlob(s.Algo(), []byte("late"))); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: %v", err)
	}
	if err := s.List(ctx, func(objects.OID) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("List with a cancelled context: %v", err)
	}
}
