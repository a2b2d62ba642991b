package objects

import (
	"slices"
	"strings"
	"testing"
)

// Oids that the payload-rule vectors (conformance files 15-*) share.
const (
	vE1    = "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7"
	vE2    = "event:sha256:e5de70c30d002e683da10de56bc0afd83a9df2825413920a6575f5dfedd4c57d"
	vE3    = "event:sha256:8c5c86ed75ac7e640ef756cb1bb73a3533ba0bc545a6ebd68468db4857f0cd3e"
	vE4    = "event:sha256:4444444444444444444444444444444444444444444444444444444444444444"
	vHello = "blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"
	vR1    = "run:sha256:1111111111111111111111111111111111111111111111111111111111111111"
	vR2    = "run:sha256:2222222222222222222222222222222222222222222222222222222222222222"
	vRun   = "run:sha256:e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6"
	vA1    = "annotation:sha256:353bdcfcb6e3f4bf5c938aedac942dd643ebb37392c2c26cfd128ef007edfb07"
	vA2    = "annotation:sha256:60d0b0fcff89307774e931d1bd1b57e4658a5b1fd4cbefa53ad7b3fb091ce8b7"
	vB3    = "blob:sha256:3333333333333333333333333333333333333333333333333333333333333333"
)

// payloadCase is one vector of the ops links.extract, event.metrics,
// run.graph, annotation.chain and object.load, with the suite's args:
// present (oids that exist without bytes), shallow, objects (envelopes the
// repository holds) and expected_oid.
type payloadCase struct {
	name, op string
	input    []byte
	present  []string
	shallow  []string
	objects  [][]byte
	expected string
	links    []string // the expected multiset, or nil when not checked
	oid      string   // object.load's expected output oid
	reason   string   // comma-separated acceptable reasons; "" accepts
}

// testRepo is a Resolver over in-memory objects, present-only oids and a
// shallow set, as the conformance args describe a repository.
type testRepo struct {
	objects map[OID]*Object
	present map[OID]bool
	shallow map[OID]bool
	fail    map[OID]error // Resolve fails for these, as a corrupt store would
}

func newTestRepo(t testing.TB, a Algo, present, shallow []string, objects [][]byte) *testRepo {
	t.Helper()
	r := &testRepo{objects: map[OID]*Object{}, present: map[OID]bool{}, shallow: map[OID]bool{}, fail: map[OID]error{}}
	for _, s := range present {
		r.present[mustOID(t, s)] = true
	}
	for _, s := range shallow {
		r.shallow[mustOID(t, s)] = true
	}
	for _, b := range objects {
		o, err := DecodeEnvelope(a, b)
		if err != nil {
			t.Fatalf("repository object %q: %v", b, err)
		}
		r.objects[o.ID] = o
	}
	return r
}

func (r *testRepo) Resolve(id OID) (*Object, error) {
	if err := r.fail[id]; err != nil {
		return nil, err
	}
	return r.objects[id], nil
}

func (r *testRepo) Shallow(id OID) bool { return r.shallow[id] }

func (r *testRepo) Present(id OID) (bool, error) {
	_, ok := r.objects[id]
	return ok || r.present[id], nil
}

// resolveOnly hides testRepo's PresenceChecker.
type resolveOnly struct{ r *testRepo }

func (r resolveOnly) Resolve(id OID) (*Object, error) { return r.r.Resolve(id) }
func (r resolveOnly) Shallow(id OID) bool             { return r.r.Shallow(id) }

func mustOID(t testing.TB, s string) OID {
	t.Helper()
	id, err := ParseOID(s)
	if err != nil {
		t.Fatalf("oid %q: %v", s, err)
	}
	return id
}

// runPayloadCase drives one vector through the package API the way the
// conformance adapter does.
func runPayloadCase(t *testing.T, c payloadCase) {
	repo := newTestRepo(t, SHA256, c.present, c.shallow, c.objects)
	var o *Object
	var err error
	if c.expected != "" {
		o, err = DecodeEnvelopeAs(mustOID(t, c.expected), c.input)
	} else {
		o, err = DecodeEnvelope(SHA256, c.input)
	}
	var links []OID
	if err == nil {
		switch c.op {
		case "links.extract":
			if links, err = Links(o); err == nil {
				err = CheckLinksExist(links, repo)
			}
		case "event.metrics":
			err = CheckMetrics(o.Value)
		case "run.graph":
			err = CheckRunGraph(o, repo)
		case "annotation.chain":
			err = CheckAnnotationChain(o, repo)
		case "object.load":
			links, err = Validate(o, repo)
		default:
			t.Fatalf("unknown op %s", c.op)
		}
	}
	if c.reason != "" {
		wantReason(t, err, c.reason)
		return
	}
	if err != nil {
		t.Fatalf("rejected: %v", err)
	}
	if c.oid != "" && o.ID.String() != c.oid {
		t.Fatalf("oid %s, want %s", o.ID, c.oid)
	}
	if c.links != nil {
		got := make([]string, len(links))
		for i, l := range links {
			got[i] = l.String()
		}
		want := slices.Clone(c.links)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("links %v, want %v", got, want)
		}
	}
}

func runPayloadCases(t *testing.T, cases []payloadCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runPayloadCase(t, c) })
	}
}

func TestLoadVectors(t *testing.T) { runPayloadCases(t, loadVectors) }

func TestChainVectors(t *testing.T) { runPayloadCases(t, chainVectors) }

// loadVectors transcribes 15d-load (op object.load).
var loadVectors = []payloadCase{
	{"load.annotation-chain", "object.load", env(hAnn, `{"compatibility":"run-metadata-v1","previous_id":"`+vA1+`","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a","b"]}}`),
		nil, nil, [][]byte{env(hAnn, `{"compatibility":"run-metadata-v1","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a"]}}`), env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"manifests":{"transcript":"`+vHello+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`)}, "",
		[]string{vA1, vRun}, vA2, ""},
	{"load.annotation-chain-broken", "object.load", env(hAnn, `{"compatibility":"run-metadata-v1","previous_id":"`+vA1+`","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a","b"]}}`),
		[]string{vA1}, nil, [][]byte{env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"manifests":{"transcript":"`+vHello+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`)}, "",
		nil, "", "chain.previous-unavailable"},
	{"load.blob", "object.load", env(hBlob, "hello\n"),
		nil, nil, nil, "",
		[]string{}, vHello, ""},
	{"load.event-bad-metrics", "object.load", env(hEvent, `{"cost":-1,"kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-not-finite"},
	{"load.event-links-present", "object.load", env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`), env(hBlob, "hello\n")}, "",
		[]string{vE1}, vE2, ""},
	{"load.event-links-shallow", "object.load", env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`),
		nil, []string{vE1}, nil, "",
		[]string{vE1}, vE2, ""},
	{"load.missing-link", "object.load", env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.missing-object"},
	{"load.oid-mismatch", "object.load", env(hBlob, "hello\n"),
		nil, nil, nil, vB3,
		nil, "", "envelope.oid-mismatch"},
	{"load.run-bad-graph", "object.load", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":[],"tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`), env(hBlob, "hello\n")}, "",
		nil, "", "graph.roots-mismatch"},
	{"load.run-complete", "object.load", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"manifests":{"transcript":"`+vHello+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`), env(hBlob, "hello\n")}, "",
		[]string{vHello, vE1, vE1, vE2, vE2}, vRun, ""},
}

// chainVectors transcribes the annotation.chain cases of 15-links.
var chainVectors = []payloadCase{
	{"chain.previous-unavailable", "annotation.chain", env(hAnn, `{"compatibility":"run-metadata-v1","previous_id":"`+vA1+`","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a","b"]}}`),
		nil, nil, nil, "",
		nil, "", "chain.previous-unavailable"},
	{"chain.same-target", "annotation.chain", env(hAnn, `{"compatibility":"run-metadata-v1","previous_id":"`+vA1+`","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a","b"]}}`),
		nil, nil, [][]byte{env(hAnn, `{"compatibility":"run-metadata-v1","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a"]}}`)}, "",
		nil, "", ""},
	{"chain.target-changed", "annotation.chain", env(hAnn, `{"previous_id":"`+vA1+`","target_id":"`+vR2+`"}`),
		nil, nil, [][]byte{env(hAnn, `{"compatibility":"run-metadata-v1","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a"]}}`)}, "",
		nil, "", "chain.target-changed"},
}

func TestValidateOrder(t *testing.T) {
	// Structure is checked before existence, existence before the graph.
	repo := newTestRepo(t, SHA256, nil, nil, nil)
	o := mustObject(t, SHA256, TypeRun, `{"events":["`+vE1+`"],"roots":["`+vE2+`"]}`)
	_, err := Validate(o, repo)
	wantReason(t, err, "link.run-roots-tips-not-subset")
	o = mustObject(t, SHA256, TypeRun, `{"events":["`+vE1+`"],"status":"bogus"}`)
	_, err = Validate(o, repo)
	wantReason(t, err, "link.missing-object")
	if !strings.Contains(err.Error(), o.ID.String()) || !strings.Contains(err.Error(), vE1) {
		t.Fatalf("error %q does not name the run and the link", err)
	}
	_, err = Validate(o, newTestRepo(t, SHA256, nil, []string{vE1}, nil))
	wantReason(t, err, "graph.status-invalid")
}

func TestValidateBlob(t *testing.T) {
	links, err := Validate(NewBlob(SHA256, []byte("x")), newTestRepo(t, SHA256, nil, nil, nil))
	if err != nil || len(links) != 0 {
		t.Fatalf("blob: %v %v", links, err)
	}
}
