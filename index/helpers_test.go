package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/refs"
)

// testRepo is a repository directory with a loose store and a ref store,
// built without plumbing (which imports this package).
type testRepo struct {
	t     testing.TB
	ctx   context.Context
	root  string
	algo  objects.Algo
	store *loose.Store
	refs  *refs.Store
	ix    *Index
}

func newTestRepo(t testing.TB, a objects.Algo) *testRepo {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"objects", "refs/heads", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st, err := loose.Open(filepath.Join(root, "objects"), a)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1757030400, 0)
	rs := refs.Open(root, a, st, refs.WithClock(func() time.Time { return clock }))
	r := &testRepo{t: t, ctx: context.Background(), root: root, algo: a, store: st, refs: rs}
	r.ix = New(root, a, st, rs, Options{})
	return r
}

// put stores a JSON object built from members.
func (r *testRepo) put(ty objects.Type, members ...objects.Member) objects.OID {
	r.t.Helper()
	o, err := objects.NewJSONObject(r.algo, ty, 1, objects.ObjectValue(members...))
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.store.Put(r.ctx, o); err != nil {
		r.t.Fatal(err)
	}
	return o.ID
}

func str(s string) objects.Value { return objects.String(s) }

func oidArray(ids []objects.OID) objects.Value {
	vals := make([]objects.Value, len(ids))
	for i, id := range ids {
		vals[i] = str(id.String())
	}
	return objects.Array(vals...)
}

// event stores an event with a label, an optional parent and an optional
// gate input digest.
func (r *testRepo) event(label, digest string, parent ...objects.OID) objects.OID {
	m := []objects.Member{{Key: "kind", Value: str("tool")}, {Key: "label", Value: str(label)}, {Key: "parent_ids", Value: oidArray(parent)}}
	if digest != "" {
		m = append(m, objects.Member{Key: "input_digest", Value: str(digest)})
	}
	return r.put(objects.TypeEvent, m...)
}

// run stores a linear run over events (each the parent of the next).
func (r *testRepo) run(events []objects.OID, extra ...objects.Member) objects.OID {
	m := append([]objects.Member{
		{Key: "events", Value: oidArray(events)},
		{Key: "roots", Value: oidArray(events[:1])},
		{Key: "tips", Value: oidArray(events[len(events)-1:])},
	}, extra...)
	return r.put(objects.TypeRun, m...)
}

// fork stores a run forked from src that continues with extra events.
func (r *testRepo) fork(src objects.OID, events []objects.OID) objects.OID {
	return r.run(events, objects.Member{Key: "forked_from", Value: objects.ObjectValue(
		objects.Member{Key: "run", Value: str(src.String())},
		objects.Member{Key: "event", Value: str(events[0].String())})})
}

// setRef points name at id unconditionally.
func (r *testRepo) setRef(name string, id objects.OID) {
	r.t.Helper()
	if err := r.refs.UpdateExpect(r.ctx, name, id, refs.ExpectAny, "test"); err != nil {
		r.t.Fatal(err)
	}
}

// evaluate stores an evaluation attestation of run.
func (r *testRepo) evaluate(run objects.OID, signer string, scores ...objects.Member) objects.OID {
	return r.attest(run, signer, objects.ObjectValue(
		objects.Member{Key: "kind", Value: str(KindEvaluation)},
		objects.Member{Key: "scores", Value: objects.ObjectValue(scores...)}))
}

// attest stores an attestation of run with the given claim.
func (r *testRepo) attest(run objects.OID, signer string, claim objects.Value) objects.OID {
	return r.put(objects.TypeAttestation,
		objects.Member{Key: "target_id", Value: str(run.String())},
		objects.Member{Key: "claim", Value: claim},
		objects.Member{Key: "evidence_ids", Value: objects.Array()},
		objects.Member{Key: "signer", Value: str(signer)},
		objects.Member{Key: "signature", Value: objects.Null()})
}

func score(name string, v float64) objects.Member {
	return objects.Member{Key: name, Value: objects.Float(v)}
}

// catalog loads the catalog, failing the test on error.
func (r *testRepo) catalog() (*Catalog, *Report) {
	r.t.Helper()
	c, rep, err := r.ix.Catalog(r.ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	if rep.SaveErr != nil {
		r.t.Fatal(rep.SaveErr)
	}
	return c, rep
}

// fileBytes returns the catalog file.
func (r *testRepo) fileBytes() []byte {
	r.t.Helper()
	b, err := os.ReadFile(r.ix.Path())
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// merged returns the catalog as loaded from its base file and layers,
// encoded as one base file: what a rebuild must write.
func (r *testRepo) merged() []byte {
	r.t.Helper()
	s, err := r.ix.readStack()
	if err != nil || s == nil {
		r.t.Fatalf("read catalog: %v", err)
	}
	return encode(s.d)
}

// keepLayers makes updates write layers however large they grow against
// the base (the fixtures' bases are a few hundred bytes), until MaxLayers.
func keepLayers(t *testing.T) {
	old := compactShare
	compactShare = 0
	t.Cleanup(func() { compactShare = old })
}

// refsAny is refs.ExpectAny, spelled for call sites.
func refsAny() refs.Expect { return refs.ExpectAny }

func TestCompareOIDMatchesSpelling(t *testing.T) {
	var ids []objects.OID
	for i, typ := range []objects.Type{objects.TypeAnnotation, objects.TypeAttestation, objects.TypeBlob, objects.TypeEvent, objects.TypeRun} {
		for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
			for _, d := range []byte{0x00, 0x0f, 0xa0, 0xff} {
				id := objects.OID{Type: typ, Algo: a}
				id.Digest[0], id.Digest[31] = d, byte(i)
				ids = append(ids, id)
			}
		}
	}
	for _, x := range ids {
		for _, y := range ids {
			if got, want := compareOID(x, y), x.Compare(y); got != want {
				t.Fatalf("compareOID(%s, %s) = %d, want %d", x, y, got, want)
			}
		}
	}
}
