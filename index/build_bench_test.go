package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/refs"
)

// packedRepo is a repository laid out as `tine import` leaves one: a run
// of n events, each with an output blob, all in one storage pack, and a
// few attestations and annotations written loose afterwards (`tine
// attest`, `tine annotate`), read through the combined store.
type packedRepo struct {
	src  *combined.Store
	refs *refs.Store
}

func newPackedRepo(b *testing.B, n int) *packedRepo {
	b.Helper()
	ctx := context.Background()
	a := objects.BLAKE3
	root := b.TempDir()
	for _, d := range []string{"objects/pack", "refs/heads", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	ls, err := loose.Open(filepath.Join(root, "objects"), a)
	if err != nil {
		b.Fatal(err)
	}
	ps, err := pack.Open(filepath.Join(root, "objects", "pack"), a)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ps.Close() })
	src, err := combined.New(ls, ps)
	if err != nil {
		b.Fatal(err)
	}
	mk := func(ty objects.Type, ms ...objects.Member) *objects.Object {
		o, err := objects.NewJSONObject(a, ty, 1, objects.ObjectValue(ms...))
		if err != nil {
			b.Fatal(err)
		}
		return o
	}
	objs := make([]*objects.Object, 0, 2*n+1)
	evs := make([]objects.OID, 0, n)
	for i := range n {
		blob := objects.NewBlob(a, fmt.Appendf(nil, "output of step %d\n", i))
		parents := evs[max(i-1, 0):]
		ev := mk(objects.TypeEvent, objects.Member{Key: "kind", Value: str("tool")},
			objects.Member{Key: "label", Value: str(fmt.Sprintf("step %d", i))},
			objects.Member{Key: "output_id", Value: str(blob.ID.String())},
			objects.Member{Key: "parent_ids", Value: oidArray(parents)})
		objs = append(objs, blob, ev)
		evs = append(evs, ev.ID)
	}
	run := mk(objects.TypeRun, objects.Member{Key: "events", Value: oidArray(evs)},
		objects.Member{Key: "roots", Value: oidArray(evs[:1])},
		objects.Member{Key: "tips", Value: oidArray(evs[n-1:])})
	objs = append(objs, run)
	if _, err := ps.WritePack(ctx, objs, pack.Options{}); err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		att := mk(objects.TypeAttestation, objects.Member{Key: "target_id", Value: str(run.ID.String())},
			objects.Member{Key: "claim", Value: objects.ObjectValue(
				objects.Member{Key: "kind", Value: str(KindEvaluation)},
				objects.Member{Key: "scores", Value: objects.ObjectValue(objects.Member{Key: "acc", Value: objects.Int(int64(i))})})},
			objects.Member{Key: "evidence_ids", Value: objects.Array()},
			objects.Member{Key: "signer", Value: str("bench")},
			objects.Member{Key: "signature", Value: objects.Null()})
		if err := src.Put(ctx, att); err != nil {
			b.Fatal(err)
		}
	}
	ann := mk(objects.TypeAnnotation, objects.Member{Key: "compatibility", Value: str("run-metadata-v1")},
		objects.Member{Key: "previous_id", Value: objects.Null()},
		objects.Member{Key: "target_id", Value: str(run.ID.String())},
		objects.Member{Key: "value", Value: objects.ObjectValue(objects.Member{Key: "tags", Value: objects.Array()})})
	if err := src.Put(ctx, ann); err != nil {
		b.Fatal(err)
	}
	rs := refs.Open(root, a, src)
	if err := rs.UpdateExpect(ctx, "heads/main", run.ID, refs.ExpectAny, "bench"); err != nil {
		b.Fatal(err)
	}
	return &packedRepo{src: src, refs: rs}
}

// BenchmarkCatalogBuild times a catalog built from scratch (what `tine
// runs` does when objects/catalog is missing), without writing the file,
// on a packed 10,000-event run with output blobs and a few loose
// attestations and an annotation (state), and the listing of the
// repository's state alone (refs, attestation and annotation ids), which
// every catalog load pays, fresh or not.
func BenchmarkCatalogBuild(b *testing.B) {
	ctx := context.Background()
	r := newPackedRepo(b, 10000)
	b.Run("events=10000/build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			st, err := readState(ctx, r.src, r.refs)
			if err != nil {
				b.Fatal(err)
			}
			d, err := newBuilder(ctx, r.src, objects.BLAKE3, DefaultRules, nil).build(st)
			if err != nil {
				b.Fatal(err)
			}
			if len(d.atts) != 5 || len(d.anns) != 1 || len(d.runs) != 1 {
				b.Fatalf("catalog of %d attestations, %d annotations, %d runs; want 5, 1, 1", len(d.atts), len(d.anns), len(d.runs))
			}
		}
	})
	b.Run("events=10000/state", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			st, err := readState(ctx, r.src, r.refs)
			if err != nil {
				b.Fatal(err)
			}
			if len(st.atts) != 5 || len(st.anns) != 1 {
				b.Fatalf("state lists %d attestations, %d annotations; want 5, 1", len(st.atts), len(st.anns))
			}
		}
	})
}
