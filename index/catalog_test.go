package index

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// fixture is a repository with a run, a fork, a tag, evaluations, a gate
// attestation and an annotation.
type fixture struct {
	*testRepo
	e1, e2, e3   objects.OID
	main, forked objects.OID
	evMain       objects.OID
	evFork       objects.OID
	evCarol      objects.OID
	gateAtt      objects.OID
	waiver       objects.OID
}

func newFixture(t *testing.T, a objects.Algo) *fixture {
	r := newTestRepo(t, a)
	f := &fixture{testRepo: r}
	f.e1 = r.event("plan", "")
	f.e2 = r.event("test", "digest-1", f.e1)
	f.e3 = r.event("retry", "digest-2", f.e2)
	f.main = r.run([]objects.OID{f.e1, f.e2})
	f.forked = r.fork(f.main, []objects.OID{f.e1, f.e2, f.e3})
	r.setRef("heads/main", f.main)
	r.setRef("experiments/loop1/b", f.forked)
	r.setRef("tags/v1", f.main)
	blob := objects.NewBlob(a, []byte("notes"))
	if err := r.store.Put(r.ctx, blob); err != nil {
		t.Fatal(err)
	}
	r.setRef("tags/notes", blob.ID)
	f.evMain = r.evaluate(f.main, "alice", score("accuracy", 0.9), score("cost", 3))
	f.evFork = r.evaluate(f.forked, "bob", score("accuracy", 0.95))
	f.evCarol = r.evaluate(f.forked, "carol", score("accuracy", 0.5), objects.Member{Key: "huge", Value: objects.Int(1 << 50)})
	f.gateAtt = r.attest(f.main, "ci", objects.ObjectValue(
		objects.Member{Key: "kind", Value: str(KindGate)},
		objects.Member{Key: "contract", Value: str("sha256:abc")},
		objects.Member{Key: "decision", Value: str("pass")},
		objects.Member{Key: "phase", Value: str("ci")},
		objects.Member{Key: "verdicts", Value: objects.Array()}))
	f.waiver = r.put(objects.TypeAnnotation,
		objects.Member{Key: "target_id", Value: str(f.e2.String())},
		objects.Member{Key: "value", Value: objects.ObjectValue(objects.Member{Key: "waiver", Value: str("flaky")})})
	return f
}

func TestCatalogQueries(t *testing.T) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			f := newFixture(t, a)
			c, rep := f.catalog()
			if rep.Action != ActionRebuilt || !rep.Saved || rep.Reason != "catalog file is missing" {
				t.Fatalf("first load: %+v", rep)
			}
			want := Counts{Refs: 4, Runs: 2, Attestations: 4, Evaluations: 3, Annotations: 1, EvidenceRows: 3, Events: 3}
			if rep.Counts != want || c.Counts() != want {
				t.Fatalf("counts %+v / %+v, want %+v", rep.Counts, c.Counts(), want)
			}
			runs := c.RunsByRef("")
			if len(runs) != 3 || runs[0].Name != "experiments/loop1/b" || runs[1].Name != "heads/main" || runs[2].Name != "tags/v1" {
				t.Fatalf("RunsByRef: %+v", runs)
			}
			if got := c.RunsByRef("experiments/loop1"); len(got) != 1 || got[0].ID != f.forked {
				t.Fatalf("RunsByRef(experiments/loop1): %+v", got)
			}
			if got := c.RunsByRef("experiments/loop"); len(got) != 0 {
				t.Fatalf("prefix must match whole components: %+v", got)
			}
			if got := c.RefsOf(f.main); !slices.Equal(got, []string{"heads/main", "tags/v1"}) {
				t.Fatalf("RefsOf(main) = %v", got)
			}
			atts := c.AttestationsFor(f.main)
			if len(atts) != 2 {
				t.Fatalf("AttestationsFor(main): %+v", atts)
			}
			g, ok := c.Attestation(f.gateAtt)
			if !ok || g.Kind != KindGate || g.Signer != "ci" || g.Target != f.main {
				t.Fatalf("gate attestation: %+v", g)
			}
			if v, _ := g.Field("decision"); v != "pass" {
				t.Fatalf("gate decision %q", v)
			}
			if v, _ := g.Field("contract"); v != "sha256:abc" {
				t.Fatalf("gate contract %q", v)
			}
			if got := c.AnnotationsFor(f.e2); !slices.Equal(got, []objects.OID{f.waiver}) {
				t.Fatalf("AnnotationsFor(e2) = %v", got)
			}
			// e2 is in both runs (shared by oid), listed once.
			if got := c.Evidence(TableGateInput, "digest-1"); !slices.Equal(got, []objects.OID{f.e2}) {
				t.Fatalf("Evidence(digest-1) = %v", got)
			}
			if got := c.Evidence(TableGateInput, "digest-2"); !slices.Equal(got, []objects.OID{f.e3}) {
				t.Fatalf("Evidence(digest-2) = %v", got)
			}
			if got := c.Evidence(TableGateInput, "nope"); len(got) != 0 {
				t.Fatalf("Evidence(nope) = %v", got)
			}
			huge := c.Evaluations("huge", 0, Filter{})
			if len(huge) != 1 || huge[0].Value != float64(1<<50) {
				t.Fatalf("integer score: %+v", huge)
			}

			_, rep = f.catalog()
			if rep.Action != ActionFresh || rep.ObjectsRead != 0 || rep.Saved {
				t.Fatalf("second load: %+v", rep)
			}
		})
	}
}

func TestEvaluationsAndCandidates(t *testing.T) {
	f := newFixture(t, objects.BLAKE3)
	c, _ := f.catalog()
	evs := c.Evaluations("accuracy", 0.9, Filter{})
	if len(evs) != 2 || evs[0].Attestation != f.evFork || evs[1].Attestation != f.evMain {
		t.Fatalf("Evaluations(accuracy>=0.9): %+v", evs)
	}
	if !slices.Equal(evs[0].Refs, []string{"experiments/loop1/b"}) || evs[0].Signer != "bob" || evs[0].Value != 0.95 {
		t.Fatalf("best evaluation: %+v", evs[0])
	}
	if got := c.Evaluations("accuracy", 0, Filter{RefPrefix: "heads"}); len(got) != 1 || got[0].Run != f.main {
		t.Fatalf("ref prefix filter: %+v", got)
	}
	if got := c.Evaluations("accuracy", 0, Filter{Signer: "carol"}); len(got) != 1 || got[0].Value != 0.5 {
		t.Fatalf("signer filter: %+v", got)
	}
	if got := c.Evaluations("accuracy", 0.96, Filter{}); len(got) != 0 {
		t.Fatalf("nothing reaches 0.96: %+v", got)
	}

	cands := c.Candidates(CandidateQuery{Min: []Threshold{{Name: "accuracy", Min: 0.92}}})
	if len(cands) != 1 || cands[0].Run != f.forked {
		t.Fatalf("candidates accuracy>=0.92: %+v", cands)
	}
	if e, ok := cands[0].Score("accuracy"); !ok || e.Value != 0.95 || e.Attestation != f.evFork {
		t.Fatalf("best score of the fork: %+v", e)
	}
	all := c.Candidates(CandidateQuery{Min: []Threshold{{Name: "accuracy", Min: 0}}})
	if len(all) != 2 || all[0].Run != f.forked || all[1].Run != f.main {
		t.Fatalf("candidates ordered best first: %+v", all)
	}
	both := c.Candidates(CandidateQuery{Min: []Threshold{{Name: "accuracy", Min: 0.5}, {Name: "cost", Min: 1}}})
	if len(both) != 1 || both[0].Run != f.main {
		t.Fatalf("two thresholds: %+v", both)
	}
	// With carol only, the fork's best accuracy is 0.5.
	if got := c.Candidates(CandidateQuery{Min: []Threshold{{Name: "accuracy", Min: 0.6}}, Filter: Filter{Signer: "carol"}}); len(got) != 0 {
		t.Fatalf("signer-restricted candidates: %+v", got)
	}
}

func TestUpdateAfterRefMoveMatchesRebuild(t *testing.T) {
	keepLayers(t)
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	// Append to main: a new run whose events extend the old one's.
	e4 := f.event("deploy", "digest-3", f.e2)
	main2 := f.run([]objects.OID{f.e1, f.e2, e4})
	f.setRef("heads/main", main2)
	st, err := f.ix.Status(f.ctx)
	if err != nil || st.State != StateStale || st.StaleRefs != 1 {
		t.Fatalf("status after ref move: %+v, %v", st, err)
	}
	rep, err := f.ix.Update(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The new run and the one new event: the old run's events are the
	// catalog's.
	if rep.Action != ActionUpdated || rep.ObjectsRead != 2 || rep.Reason != "1 refs changed" {
		t.Fatalf("update: %+v", rep)
	}
	c, _ := f.catalog()
	if got := c.Evidence(TableGateInput, "digest-3"); !slices.Equal(got, []objects.OID{e4}) {
		t.Fatalf("new evidence: %v", got)
	}
	if got := c.RefsOf(f.main); !slices.Equal(got, []string{"tags/v1"}) {
		t.Fatalf("old run keeps only its tag: %v", got)
	}
	updated := f.merged()
	if _, err := f.ix.Rebuild(f.ctx); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(updated, f.merged()) {
		t.Fatal("an incremental update differs from a rebuild")
	}

	// Deleting the fork's ref drops its run and the evidence only it held.
	if err := f.refs.Delete(f.ctx, "experiments/loop1/b", refsAny()); err != nil {
		t.Fatal(err)
	}
	c, rep = f.catalog()
	if rep.Action != ActionUpdated || rep.ObjectsRead != 0 {
		t.Fatalf("update after delete: %+v", rep)
	}
	if got := c.Evidence(TableGateInput, "digest-2"); len(got) != 0 {
		t.Fatalf("evidence of an unreferenced run: %v", got)
	}
	if got := c.Evaluations("accuracy", 0, Filter{RefPrefix: "experiments"}); len(got) != 0 {
		t.Fatalf("evaluations under a deleted ref: %+v", got)
	}
	if got := c.Evaluations("accuracy", 0, Filter{}); len(got) != 3 {
		t.Fatalf("evaluations stay in the store: %+v", got)
	}
}

func TestNewAttestationAndAnnotationDetected(t *testing.T) {
	f := newFixture(t, objects.SHA256)
	f.catalog()
	ev := f.evaluate(f.main, "dave", score("accuracy", 0.99))
	ann := f.put(objects.TypeAnnotation, objects.Member{Key: "target_id", Value: str(f.main.String())})
	st, err := f.ix.Status(f.ctx)
	if err != nil || st.State != StateStale || st.StaleAttestations != 1 || st.StaleAnnotations != 1 {
		t.Fatalf("status: %+v, %v", st, err)
	}
	c, rep := f.catalog()
	if rep.Action != ActionUpdated || rep.ObjectsRead != 2 {
		t.Fatalf("update: %+v", rep)
	}
	if got := c.Evaluations("accuracy", 0.99, Filter{}); len(got) != 1 || got[0].Attestation != ev {
		t.Fatalf("new evaluation: %+v", got)
	}
	if got := c.AnnotationsFor(f.main); !slices.Equal(got, []objects.OID{ann}) {
		t.Fatalf("new annotation: %v", got)
	}
	if st, _ := f.ix.Status(f.ctx); st.State != StateFresh {
		t.Fatalf("status after update: %+v", st)
	}
}

func TestForkReadsOnlyNewEvents(t *testing.T) {
	keepLayers(t)
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	e5 := f.event("branch", "digest-5", f.e1)
	branch := f.fork(f.main, []objects.OID{f.e1, e5})
	f.setRef("experiments/loop1/c", branch)
	c, rep := f.catalog()
	// The fork and the one event the source lacks.
	if rep.Action != ActionUpdated || rep.ObjectsRead != 2 {
		t.Fatalf("update after a fork: %+v", rep)
	}
	if got := c.Evidence(TableGateInput, "digest-5"); !slices.Equal(got, []objects.OID{e5}) {
		t.Fatalf("fork evidence: %v", got)
	}
	// digest-1 (e2) is in main and the first fork, not in this branch.
	if got := c.Evidence(TableGateInput, "digest-1"); !slices.Equal(got, []objects.OID{f.e2}) {
		t.Fatalf("shared evidence: %v", got)
	}
	updated := f.merged()
	if _, err := f.ix.Rebuild(f.ctx); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(updated, f.merged()) {
		t.Fatal("an incremental update after a fork differs from a rebuild")
	}
}

func TestRulesSelectEvents(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	e := r.put(objects.TypeEvent,
		objects.Member{Key: "kind", Value: str("gate")},
		objects.Member{Key: "attributes", Value: objects.ObjectValue(objects.Member{Key: "digest", Value: str("nested")})})
	other := r.put(objects.TypeEvent,
		objects.Member{Key: "kind", Value: str("model")},
		objects.Member{Key: "attributes", Value: objects.ObjectValue(objects.Member{Key: "digest", Value: str("nested")})},
		objects.Member{Key: "parent_ids", Value: oidArray([]objects.OID{e})})
	r.setRef("heads/main", r.run([]objects.OID{e, other}))
	r.ix = New(r.root, r.algo, r.store, r.refs, Options{Rules: []EvidenceRule{{Table: "t", Kind: "gate", Path: "attributes.digest"}}})
	c, _ := r.catalog()
	if got := c.Evidence("t", "nested"); !slices.Equal(got, []objects.OID{e}) {
		t.Fatalf("kind-filtered nested rule: %v", got)
	}
	bad := New(r.root, r.algo, r.store, r.refs, Options{Rules: []EvidenceRule{{Table: "", Path: "x"}}})
	if _, err := bad.Update(r.ctx); err == nil {
		t.Fatal("a rule without a table was accepted")
	}
}
