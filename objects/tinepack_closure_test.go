package objects

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestPackClosure(t *testing.T) {
	ctx := context.Background()
	for _, a := range []Algo{SHA256, BLAKE3} {
		t.Run(string(a), func(t *testing.T) {
			g := newTPGraph(t, a)
			s := newMapStore(a)
			if err := PutAll(ctx, s, g.all()); err != nil {
				t.Fatal(err)
			}
			objs, boundary, err := PackClosure(ctx, s, []OID{g.ann2.ID, g.ann2.ID}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// ann2 -> ann1, run -> e1, e2 -> blob; the attestation is not
			// reachable from the annotation.
			want := sortedTP([]*Object{g.ann2, g.ann1, g.run, g.e1, g.e2, g.blob})
			if got := (&PackFrame{Objects: objs}).ObjectIDs(); !slices.Equal(got, (&PackFrame{Objects: want}).ObjectIDs()) {
				t.Fatalf("closure %v", got)
			}
			if len(boundary) != 0 {
				t.Fatalf("boundary %v", boundary)
			}
			frame, _, err := WritePack(objs, boundary)
			if err != nil {
				t.Fatalf("closure is not writable: %v", err)
			}
			if _, err := InstallPack(ctx, frame, newMapStore(a), nil); err != nil {
				t.Fatalf("closure does not install: %v", err)
			}
		})
	}
}

func TestPackClosureShallowRepository(t *testing.T) {
	ctx := context.Background()
	g := newTPGraph(t, SHA256)
	s := newMapStore(SHA256)
	// A shallow clone: the run and its events, the blob only a boundary.
	if err := PutAll(ctx, s, []*Object{g.run, g.e1, g.e2}); err != nil {
		t.Fatal(err)
	}
	isShallow := func(id OID) bool { return id == g.blob.ID }
	objs, boundary, err := PackClosure(ctx, s, []OID{g.run.ID}, isShallow)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 || !slices.Equal(boundary, []OID{g.blob.ID}) {
		t.Fatalf("%d objects, boundary %v", len(objs), boundary)
	}
	if _, _, err := WritePack(objs, boundary); err != nil {
		t.Fatalf("closure is not writable: %v", err)
	}
	// Without the shallow entry the missing blob is damage, not boundary.
	if _, _, err := PackClosure(ctx, s, []OID{g.run.ID}, nil); !HasReason(err, ReasonLinkMissingObject) {
		t.Fatalf("error %v, want link.missing-object", err)
	}
	// A root must be present, shallow or not.
	if _, _, err := PackClosure(ctx, s, []OID{g.blob.ID}, isShallow); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing root: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := PackClosure(cancelled, s, []OID{g.run.ID}, isShallow); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestPackClosureBound(t *testing.T) {
	ctx := context.Background()
	s := newMapStore(SHA256)
	// A run naming MaxPackObjects events reaches one object too many.
	events := make([]Value, MaxPackObjects)
	objs := make([]*Object, 0, MaxPackObjects)
	for i := range events {
		ev := tpJSON(t, SHA256, TypeEvent, tpMember("n", Int(int64(i))))
		events[i] = String(ev.ID.String())
		objs = append(objs, ev)
	}
	run := tpJSON(t, SHA256, TypeRun, tpMember("events", Array(events...)))
	if err := PutAll(ctx, s, append(objs, run)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := PackClosure(ctx, s, []OID{run.ID}, nil); !HasReason(err, ReasonPackTooManyObjects) {
		t.Fatalf("error %v, want pack.too-many-objects", err)
	}
	got, _, err := PackClosure(ctx, s, []OID{objs[0].ID, objs[1].ID}, nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("small closure: %d objects, %v", len(got), err)
	}
}
