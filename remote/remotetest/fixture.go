package remotetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// Repo is a local repository a suite case records into and transfers
// from or to.
type Repo struct {
	t    testing.TB
	ctx  context.Context
	R    *plumbing.Repo
	algo objects.Algo
}

// NewRepo initializes a repository of format a in a temporary directory.
func NewRepo(t testing.TB, a objects.Algo) *Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &Repo{t: t, ctx: context.Background(), R: r, algo: a}
}

// put stores a JSON object built from members.
func (r *Repo) put(ty objects.Type, members ...objects.Member) objects.OID {
	r.t.Helper()
	o, err := objects.NewJSONObject(r.algo, ty, 1, objects.ObjectValue(members...))
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.R.Objects().Put(r.ctx, o); err != nil {
		r.t.Fatal(err)
	}
	return o.ID
}

// Blob stores a blob.
func (r *Repo) Blob(data string) objects.OID {
	r.t.Helper()
	o := objects.NewBlob(r.algo, []byte(data))
	if err := r.R.Objects().Put(r.ctx, o); err != nil {
		r.t.Fatal(err)
	}
	return o.ID
}

func str(s string) objects.Value { return objects.String(s) }

func oids(ids []objects.OID) objects.Value {
	vals := make([]objects.Value, len(ids))
	for i, id := range ids {
		vals[i] = str(id.String())
	}
	return objects.Array(vals...)
}

// Event stores an event labelled label with an output blob, a child of
// parent (none when zero).
func (r *Repo) Event(label string, parent objects.OID) objects.OID {
	var parents []objects.OID
	if !parent.IsZero() {
		parents = append(parents, parent)
	}
	return r.put(objects.TypeEvent,
		objects.Member{Key: "kind", Value: str("tool")},
		objects.Member{Key: "label", Value: str(label)},
		objects.Member{Key: "output_blob", Value: str(r.Blob("output of " + label).String())},
		objects.Member{Key: "parent_ids", Value: oids(parents)})
}

// Chain stores n events, each the child of the one before (the first a
// child of parent), and returns them in order.
func (r *Repo) Chain(prefix string, n int, parent objects.OID) []objects.OID {
	out := make([]objects.OID, 0, n)
	for i := range n {
		parent = r.Event(fmt.Sprintf("%s %d", prefix, i), parent)
		out = append(out, parent)
	}
	return out
}

// Run stores a linear run over events.
func (r *Repo) Run(events []objects.OID) objects.OID {
	return r.put(objects.TypeRun,
		objects.Member{Key: "events", Value: oids(events)},
		objects.Member{Key: "roots", Value: oids(events[:1])},
		objects.Member{Key: "tips", Value: oids(events[len(events)-1:])})
}

// Evaluate stores an evaluation attestation of run with one score.
func (r *Repo) Evaluate(run objects.OID, score float64) objects.OID {
	return r.put(objects.TypeAttestation,
		objects.Member{Key: "target_id", Value: str(run.String())},
		objects.Member{Key: "claim", Value: objects.ObjectValue(
			objects.Member{Key: "kind", Value: str("evaluation")},
			objects.Member{Key: "scores", Value: objects.ObjectValue(objects.Member{Key: "accuracy", Value: objects.Float(score)})})},
		objects.Member{Key: "evidence_ids", Value: objects.Array()},
		objects.Member{Key: "signer", Value: str("remotetest")},
		objects.Member{Key: "signature", Value: objects.Null()})
}

// Annotate stores an annotation of target, continuing the chain at
// previous (none when zero), citing evidence.
func (r *Repo) Annotate(target, previous objects.OID, note string, evidence ...objects.OID) objects.OID {
	m := []objects.Member{
		{Key: "target_id", Value: str(target.String())},
		{Key: "body", Value: str(note)},
		{Key: "evidence_ids", Value: oids(evidence)},
	}
	if !previous.IsZero() {
		m = append(m, objects.Member{Key: "previous_id", Value: str(previous.String())})
	}
	return r.put(objects.TypeAnnotation, m...)
}

// SetRef points name at id unconditionally.
func (r *Repo) SetRef(name string, id objects.OID) {
	r.t.Helper()
	if err := r.R.Refs().UpdateExpect(r.ctx, name, id, refs.ExpectAny, "remotetest"); err != nil {
		r.t.Fatal(err)
	}
}

// Has reports whether the repository stores id.
func (r *Repo) Has(id objects.OID) bool {
	r.t.Helper()
	ok, err := r.R.Objects().Has(r.ctx, id)
	if err != nil {
		r.t.Fatal(err)
	}
	return ok
}

// Fsck fails the test unless fsck finds no problem.
func (r *Repo) Fsck() {
	r.t.Helper()
	Fsck(r.t, r.R)
}

// Fsck fails t unless fsck of r finds no problem.
func Fsck(t testing.TB, r *plumbing.Repo) {
	t.Helper()
	res, err := plumbing.Fsck(context.Background(), r, plumbing.FsckOptions{})
	if err != nil {
		t.Fatalf("fsck: %v", err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("fsck found %d problems, first: %+v", len(res.Problems), res.Problems[0])
	}
}

// Closure returns the transfer set of wants in r for a receiver holding
// what has reports (nil: nothing), with associations.
func (r *Repo) Closure(has func(context.Context, objects.OID) (bool, error), depth int, wants ...objects.OID) *plumbing.TransferSet {
	r.t.Helper()
	src, err := plumbing.RepoTransferSource(r.ctx, r.R)
	if err != nil {
		r.t.Fatal(err)
	}
	set, err := plumbing.TransferClosure(r.ctx, src, plumbing.TransferOptions{Wants: wants, Depth: depth, Has: has})
	if err != nil {
		r.t.Fatal(err)
	}
	return set
}
