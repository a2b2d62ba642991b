package objects

import (
	"testing"
)

// tpGraph is a small but complete object graph of one hash profile: a
// blob, two events (e2's parent is e1, e1 reads the blob), a run over both,
// an attestation of the run citing the blob, and a chain of two annotations
// on the run.
type tpGraph struct {
	blob, e1, e2, run, att, ann1, ann2 *Object
}

// all returns the graph's objects, dependents before their targets, so a
// test that relies on the writer's sorting or the installer's ordering sees
// the unhelpful order.
func (g *tpGraph) all() []*Object {
	return []*Object{g.ann2, g.ann1, g.att, g.run, g.e2, g.e1, g.blob}
}

func tpMember(k string, v Value) Member { return Member{Key: k, Value: v} }

// tpJSON builds a json object of type ty from members.
func tpJSON(t testing.TB, a Algo, ty Type, ms ...Member) *Object {
	t.Helper()
	o, err := NewJSONObject(a, ty, 1, ObjectValue(ms...))
	if err != nil {
		t.Fatalf("build %s: %v", ty, err)
	}
	return o
}

// tpIDs spells oids as JSON strings.
func tpIDs(os ...*Object) Value {
	vs := make([]Value, len(os))
	for i, o := range os {
		vs[i] = String(o.ID.String())
	}
	return Array(vs...)
}

func newTPGraph(t testing.TB, a Algo) *tpGraph {
	t.Helper()
	g := &tpGraph{blob: NewBlob(a, []byte("hello\n"))}
	g.e1 = tpJSON(t, a, TypeEvent,
		tpMember("cost", Int(0)),
		tpMember("input_blob", String(g.blob.ID.String())),
		tpMember("kind", String("model")),
		tpMember("parent_ids", Array()))
	g.e2 = tpJSON(t, a, TypeEvent,
		tpMember("kind", String("tool")),
		tpMember("parent_ids", tpIDs(g.e1)))
	g.run = tpJSON(t, a, TypeRun,
		tpMember("events", tpIDs(g.e1, g.e2)),
		tpMember("roots", tpIDs(g.e1)),
		tpMember("status", String("completed")),
		tpMember("tips", tpIDs(g.e2)))
	g.att = tpJSON(t, a, TypeAttestation,
		tpMember("claim", ObjectValue(tpMember("kind", String("review")))),
		tpMember("evidence_ids", tpIDs(g.blob)),
		tpMember("signature", Null()),
		tpMember("signer", String("tester")),
		tpMember("target_id", String(g.run.ID.String())))
	g.ann1 = tpJSON(t, a, TypeAnnotation,
		tpMember("target_id", String(g.run.ID.String())),
		tpMember("value", ObjectValue(tpMember("tags", Array(String("a"))))))
	g.ann2 = tpJSON(t, a, TypeAnnotation,
		tpMember("previous_id", String(g.ann1.ID.String())),
		tpMember("target_id", String(g.run.ID.String())),
		tpMember("value", ObjectValue(tpMember("tags", Array(String("b"))))))
	return g
}
