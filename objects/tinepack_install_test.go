package objects

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// tpRecordingStore is a Store without PutBatch that records the order of
// puts and can fail them.
type tpRecordingStore struct {
	mem  *mapStore
	puts []OID
	fail error
}

func newTPRecordingStore(a Algo) *tpRecordingStore {
	return &tpRecordingStore{mem: newMapStore(a)}
}

func (r *tpRecordingStore) Algo() Algo { return r.mem.Algo() }

func (r *tpRecordingStore) Get(ctx context.Context, id OID) (*Object, error) {
	return r.mem.Get(ctx, id)
}

func (r *tpRecordingStore) Has(ctx context.Context, id OID) (bool, error) {
	return r.mem.Has(ctx, id)
}

func (r *tpRecordingStore) List(ctx context.Context, fn func(OID) error) error {
	return r.mem.List(ctx, fn)
}

// Put records o and stores it, or fails without storing.
func (r *tpRecordingStore) Put(ctx context.Context, o *Object) error {
	if r.fail != nil {
		return r.fail
	}
	r.puts = append(r.puts, o.ID)
	return r.mem.Put(ctx, o)
}

// TestInstallPackDependencyOrder checks SPEC §2.8's write order: every
// packed link target is written before anything linking to it, through a
// store without PutBatch (so Put is called per object).
func TestInstallPackDependencyOrder(t *testing.T) {
	g := newTPGraph(t, SHA256)
	frame, _, err := WritePack(g.all(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newTPRecordingStore(SHA256)
	pf, err := InstallPack(context.Background(), frame, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.puts) != 7 || !slices.Equal(s.puts, pf.ObjectIDs()) {
		t.Fatalf("puts %v, returned order %v", s.puts, pf.ObjectIDs())
	}
	pos := make(map[OID]int)
	for i, id := range s.puts {
		pos[id] = i
	}
	for _, o := range g.all() {
		links, err := Links(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if pos[l] > pos[o.ID] {
				t.Errorf("%s written before its link %s", o.ID, l)
			}
		}
	}
}

func TestInstallPackResolution(t *testing.T) {
	ctx := context.Background()
	g := newTPGraph(t, SHA256)
	// The events alone link out to the blob.
	partial, _, err := WritePack([]*Object{g.e1, g.e2}, []OID{g.blob.ID})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("declared boundary present locally", func(t *testing.T) {
		s := newMapStore(SHA256)
		if err := s.Put(ctx, g.blob); err != nil {
			t.Fatal(err)
		}
		pf, err := InstallPack(ctx, partial, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(pf.Boundary) != 0 {
			t.Fatalf("boundary %v: the blob is present and must not be recorded as shallow", pf.Boundary)
		}
	})
	t.Run("undeclared link present locally", func(t *testing.T) {
		s := newMapStore(SHA256)
		if err := s.Put(ctx, g.blob); err != nil {
			t.Fatal(err)
		}
		// A hand-made frame that omits the boundary: the link resolves, but
		// the boundary is not the external link set.
		frame := tpManifestFrame(t, []*Object{g.e1}, nil)
		if _, err := InstallPack(ctx, frame, s, nil); !HasReason(err, ReasonPackShallowNotLinkClosure) {
			t.Fatalf("error %v, want pack.shallow-not-link-closure", err)
		}
	})
	t.Run("existing shallow oid resolves an undeclared link", func(t *testing.T) {
		s := newMapStore(SHA256)
		frame := tpManifestFrame(t, []*Object{g.e1}, nil)
		isShallow := func(id OID) bool { return id == g.blob.ID }
		// Resolvable, yet still not the declared boundary.
		if _, err := InstallPack(ctx, frame, s, isShallow); !HasReason(err, ReasonPackShallowNotLinkClosure) {
			t.Fatalf("error %v, want pack.shallow-not-link-closure", err)
		}
		if _, err := InstallPack(ctx, frame, s, nil); !HasReason(err, ReasonPackUnresolvedLink) {
			t.Fatalf("error %v, want pack.unresolved-link", err)
		}
	})
	t.Run("chain predecessor in the store", func(t *testing.T) {
		s := newMapStore(SHA256)
		if err := PutAll(ctx, s, []*Object{g.ann1, g.run, g.e1, g.e2, g.blob}); err != nil {
			t.Fatal(err)
		}
		frame, _, err := WritePack([]*Object{g.ann2}, []OID{g.ann1.ID, g.run.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := InstallPack(ctx, frame, s, nil); err != nil {
			t.Fatal(err)
		}
		// SPEC §1.5.5: the predecessor must be readable; a boundary oid
		// satisfies the link rule but not the chain rule.
		if _, err := InstallPack(ctx, frame, newMapStore(SHA256), nil); !HasReason(err, ReasonChainPreviousUnavailable) {
			t.Fatalf("error %v, want chain.previous-unavailable", err)
		}
	})
	t.Run("wrong profile store", func(t *testing.T) {
		s := newMapStore(BLAKE3)
		if _, err := InstallPack(ctx, partial, s, nil); !HasReason(err, ReasonPackEntryOidMismatch) {
			t.Fatalf("error %v, want pack.entry-oid-mismatch", err)
		}
	})
}

// tpManifestFrame frames objs and shallow without the writer's checks.
func tpManifestFrame(t testing.TB, objs []*Object, shallow []OID) []byte {
	t.Helper()
	return tpFrame(t, string(appendPackManifest(nil, objs, shallow)))
}

// TestInstallPackValidates refuses packs whose objects break an
// existence-aware rule, and writes nothing when it does.
func TestInstallPackValidates(t *testing.T) {
	ctx := context.Background()
	g := newTPGraph(t, SHA256)
	badRun := tpJSON(t, SHA256, TypeRun,
		tpMember("events", tpIDs(g.e1, g.e2)),
		tpMember("roots", tpIDs(g.e2)), // e2 has a parent: not a root
		tpMember("tips", tpIDs(g.e2)))
	retarget := tpJSON(t, SHA256, TypeAnnotation,
		tpMember("previous_id", String(g.ann1.ID.String())),
		tpMember("target_id", String(g.e1.ID.String())))
	for _, tc := range []struct {
		name   string
		objs   []*Object
		reason Reason
	}{
		{"run roots", []*Object{badRun, g.e1, g.e2, g.blob}, ReasonGraphRootsMismatch},
		{"annotation chain", []*Object{retarget, g.ann1, g.run, g.e1, g.e2, g.blob}, ReasonChainTargetChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame, _, err := WritePack(tc.objs, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := newMapStore(SHA256)
			if _, err := InstallPack(ctx, frame, s, nil); !HasReason(err, tc.reason) {
				t.Fatalf("error %v, want %s", err, tc.reason)
			}
			if s.Len() != 0 {
				t.Fatalf("refused pack wrote %d objects", s.Len())
			}
		})
	}
}

func TestInstallPackStoreFailure(t *testing.T) {
	g := newTPGraph(t, SHA256)
	frame, _, err := WritePack(g.all(), nil)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	s := newTPRecordingStore(SHA256)
	s.fail = boom
	if _, err := InstallPack(context.Background(), frame, s, nil); !errors.Is(err, boom) {
		t.Fatalf("error %v, want the store's", err)
	}
}

func TestPackDependencyOrderCycle(t *testing.T) {
	a, b := NewBlob(SHA256, []byte("a")), NewBlob(SHA256, []byte("b"))
	links := map[OID][]OID{a.ID: {b.ID}, b.ID: {a.ID}}
	if _, err := packDependencyOrder([]*Object{a, b}, links); err == nil {
		t.Fatal("a cycle was ordered")
	}
}
