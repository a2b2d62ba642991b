package objects

import (
	"errors"
	"strings"
	"testing"
)

func TestGraphVectors(t *testing.T) { runPayloadCases(t, graphVectors) }

// graphVectors transcribes 15c-graph (op run.graph).
var graphVectors = []payloadCase{
	{"graph.causal-outside-graph", "run.graph", env(hRun, `{"events":["`+vE3+`"],"roots":[],"tips":[]}`),
		nil, nil, [][]byte{env(hEvent, `{"causal_ids":["`+vE1+`"],"kind":"tool"}`)}, "",
		nil, "", "graph.causal-outside-graph"},
	{"graph.causal.in-order", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.empty-events", "run.graph", env(hRun, `{"events":[]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.legacy-refs.not-an-object", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"legacy_refs":["`+vE1+`"],"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.legacy-refs-invalid"},
	{"graph.legacy-refs.target-outside-run", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"legacy_refs":{"step-1":"`+vE4+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.legacy-refs-invalid"},
	{"graph.legacy-refs.valid", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"legacy_refs":{"step-1":"`+vE1+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.order.child-before-parent", "run.graph", env(hRun, `{"events":["`+vE2+`","`+vE1+`"],"roots":["`+vE1+`"],"tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.order-not-topological"},
	{"graph.order.parent-before-child", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.parent-outside-graph", "run.graph", env(hRun, `{"events":["`+vE2+`"],"roots":[],"tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.parent-outside-graph"},
	{"graph.roots-tips.exact-when-complete", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.roots.mismatch", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":[],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.roots-mismatch"},
	{"graph.shallow.exactness-skipped-when-incomplete", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":[],"status":"completed","tips":[]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`)}, "",
		nil, "", ""},
	{"graph.status.absent-defaults-to-running", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.status.completed", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", ""},
	{"graph.status.unknown", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"status":"cancelled","tips":["`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.status-invalid"},
	{"graph.tips.mismatch", "run.graph", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"roots":["`+vE1+`"],"status":"completed","tips":["`+vE1+`","`+vE2+`"]}`),
		nil, nil, [][]byte{env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`)}, "",
		nil, "", "graph.tips-mismatch"},
}

// ev is the envelope of a sha256 event with the given parents.
func ev(t testing.TB, kind string, parents ...string) (string, []byte) {
	t.Helper()
	body := `{"kind":"` + kind + `","parent_ids":[` + quoteJoin(parents) + `]}`
	o := mustObject(t, SHA256, TypeEvent, body)
	return o.ID.String(), o.Stored()
}

func quoteJoin(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return `"` + strings.Join(ids, `","`) + `"`
}

func TestRunGraphEdges(t *testing.T) {
	a, aEnv := ev(t, "a")
	b, bEnv := ev(t, "b", a)
	c, cEnv := ev(t, "c", a)
	all := [][]byte{aEnv, bEnv, cEnv}
	list := func(ids ...string) string { return "[" + quoteJoin(ids) + "]" }
	cases := []struct {
		name    string
		body    string
		objects [][]byte
		want    string
	}{
		{"diamond tips", `{"events":` + list(a, b, c) + `,"roots":` + list(a) + `,"tips":` + list(b, c) + `}`, all, ""},
		{"tips missing one leaf", `{"events":` + list(a, b, c) + `,"roots":` + list(a) + `,"tips":` + list(b) + `}`, all, "graph.tips-mismatch"},
		{"roots checked before tips", `{"events":` + list(a, b, c) + `,"roots":` + list(b) + `,"tips":` + list(a) + `}`, all, "graph.roots-mismatch"},
		{"incomplete graph skips exactness", `{"events":` + list(a, b, c) + `,"roots":[],"tips":[]}`, [][]byte{aEnv, cEnv}, ""},
		{"order checked on present events only", `{"events":` + list(b, a) + `}`, [][]byte{aEnv}, ""},
		{"order wrong with the child present", `{"events":` + list(b, a) + `}`, [][]byte{bEnv}, "graph.order-not-topological"},
		{"status null", `{"status":null}`, nil, "graph.status-invalid"},
		{"status not a string", `{"status":["running"]}`, nil, "graph.status-invalid"},
		{"status paused", `{"status":"paused"}`, nil, ""},
		{"status before graph faults", `{"events":` + list(b) + `,"status":"x"}`, all, "graph.status-invalid"},
		{"legacy_refs null", `{"legacy_refs":null}`, nil, "graph.legacy-refs-invalid"},
		{"legacy_refs empty", `{"legacy_refs":{}}`, nil, ""},
		{"legacy_refs value not a string", `{"events":` + list(a) + `,"legacy_refs":{"s":1}}`, nil, "graph.legacy-refs-invalid"},
		{"legacy_refs malformed oid", `{"events":` + list(a) + `,"legacy_refs":{"s":"x"}}`, nil, "graph.legacy-refs-invalid"},
		{"legacy_refs checked before the graph", `{"events":` + list(b) + `,"legacy_refs":{"s":"` + vE4 + `"}}`, all, "graph.legacy-refs-invalid"},
		{"no events at all", `{}`, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo := newTestRepo(t, SHA256, nil, nil, tc.objects)
			run := mustObject(t, SHA256, TypeRun, tc.body)
			err := CheckRunGraph(run, repo)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			wantReason(t, err, tc.want)
			if !strings.Contains(err.Error(), run.ID.String()) {
				t.Fatalf("error %q does not name the run", err)
			}
		})
	}
}

func TestRunGraphStoreFailure(t *testing.T) {
	a, aEnv := ev(t, "a")
	repo := newTestRepo(t, SHA256, nil, nil, [][]byte{aEnv})
	boom := errors.New("bad sector")
	repo.fail[mustOID(t, a)] = boom
	run := mustObject(t, SHA256, TypeRun, `{"events":["`+a+`"]}`)
	if err := CheckRunGraph(run, repo); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the store failure", err)
	}
}

func TestRunGraphIgnoresOtherTypes(t *testing.T) {
	o := mustObject(t, SHA256, TypeEvent, `{"status":"nonsense"}`)
	if err := CheckRunGraph(o, newTestRepo(t, SHA256, nil, nil, nil)); err != nil {
		t.Fatal(err)
	}
}

func TestRunGraphBlake3(t *testing.T) {
	a := mustObject(t, BLAKE3, TypeEvent, `{"kind":"a"}`)
	b := mustObject(t, BLAKE3, TypeEvent, `{"parent_ids":["`+a.ID.String()+`"]}`)
	repo := newTestRepo(t, BLAKE3, nil, nil, [][]byte{a.Stored(), b.Stored()})
	ids := `["` + a.ID.String() + `","` + b.ID.String() + `"]`
	good := mustObject(t, BLAKE3, TypeRun, `{"events":`+ids+`,"roots":["`+a.ID.String()+`"],"tips":["`+b.ID.String()+`"]}`)
	if links, err := Validate(good, repo); err != nil || len(links) != 4 {
		t.Fatalf("blake3 run: %v %v", links, err)
	}
	bad := mustObject(t, BLAKE3, TypeRun, `{"events":`+ids+`,"roots":[],"tips":["`+b.ID.String()+`"]}`)
	_, err := Validate(bad, repo)
	wantReason(t, err, "graph.roots-mismatch")
}
