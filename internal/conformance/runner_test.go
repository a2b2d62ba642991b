package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

type adapterFunc func(Request) Response

func (f adapterFunc) Handle(r Request) Response { return f(r) }

func boolPtr(b bool) *bool { return &b }

// scoringSuite is a small in-memory suite exercising every scoring rule.
func scoringSuite() *Suite {
	v := CaseInput{Value: json.RawMessage(`"x"`)}
	digest := sha256.Sum256([]byte(`{"oids":["a","b"]}`)) // Python json.dumps, sort_keys, compact
	return &Suite{Manifest: Manifest{
		Ops:         map[string]OpMeta{"op.list": {Unordered: []string{"oids"}}},
		AliasGroups: [][]string{{"r.one", "r.two"}},
	}, Cases: []Case{
		{ID: "acc", Op: "op.a", Expect: "accept", Input: v, Output: json.RawMessage(`{"n":1}`), Family: "f1", Twin: "acc2", MustDiffer: boolPtr(true)},
		{ID: "acc2", Op: "op.a", Expect: "accept", Input: v, Output: json.RawMessage(`{"n":2}`), Family: "f1", Twin: "acc", MustDiffer: boolPtr(true)},
		{ID: "rej", Op: "op.r", Expect: "reject", Input: v, Reason: "r.one", Family: "f1",
			Forbidden: json.RawMessage(`{"n":9}`)},
		{ID: "rej-any", Op: "op.r", Expect: "reject", Input: v, ReasonAny: []string{"r.three", "r.two"}, Family: "f2"},
		{ID: "verdict", Op: "op.v", Expect: "verdict", Input: v, Output: json.RawMessage(`{"ok":false,"reason":null}`), Family: "f2"},
		{ID: "list", Op: "op.list", Expect: "accept", Input: v, OutputSHA256: hex.EncodeToString(digest[:]), Family: "f2"},
		{ID: "needs", Op: "op.a", Expect: "accept", Input: v, Requires: []string{"quantum"}, Family: "f2"},
		{ID: "later", Op: "op.later", Expect: "accept", Input: v, Family: "f2"},
	}}
}

func statuses(rep *Report) map[string]string {
	out := map[string]string{}
	for _, r := range rep.Results {
		out[r.ID] = r.Status
	}
	return out
}

func TestRunnerScoring(t *testing.T) {
	good := adapterFunc(func(r Request) Response {
		switch r.ID {
		case "acc":
			return Response{ID: r.ID, OK: true, Output: map[string]any{"n": 1}}
		case "acc2":
			return Response{ID: r.ID, OK: true, Output: map[string]any{"n": 2}}
		case "rej":
			return Response{ID: r.ID, Reason: "r.two"} // alias of r.one
		case "rej-any":
			return Response{ID: r.ID, Reason: "r.one"} // alias of r.two
		case "verdict":
			return Response{ID: r.ID, OK: true, Output: map[string]any{"reason": nil, "ok": false}}
		case "list":
			return Response{ID: r.ID, OK: true, Output: map[string]any{"oids": []string{"b", "a"}}}
		}
		return Response{ID: r.ID, Unsupported: true}
	})
	rep := (&Runner{Suite: scoringSuite(), Adapter: good, Level: 2}).Run()
	want := map[string]string{"acc": "pass", "acc2": "pass", "rej": "pass", "rej-any": "pass", "verdict": "pass",
		"list": "pass", "needs": "skip", "later": "unsupported"}
	for id, st := range want {
		if got := statuses(rep)[id]; got != st {
			t.Errorf("good adapter: %s is %s, want %s", id, got, st)
		}
	}
	if rep.Pairs != (Pairs{Total: 2, Passed: 2}) || rep.ReasonAgreement != (Agreement{Total: 1, Agreed: 1}) {
		t.Errorf("pairs %+v, agreement %+v", rep.Pairs, rep.ReasonAgreement)
	}
	if f := rep.ByFamily()["f2"]; f != (Totals{Pass: 3, Skip: 1, Unsupported: 1}) {
		t.Errorf("family f2 totals %+v", f)
	}

	// A constant answerer: right for acc, wrong for acc2, and the pair
	// claim fails acc too; it repairs the reject case; a wrong reason
	// fails at Level 2 but not at Level 1.
	bad := adapterFunc(func(r Request) Response {
		switch r.ID {
		case "rej":
			return Response{ID: r.ID, OK: true, Output: map[string]any{"n": 9, "extra": true}}
		case "rej-any":
			return Response{ID: r.ID, Reason: "r.elsewhere"}
		case "list":
			return Response{ID: r.ID, OK: true, Output: map[string]any{"oids": []string{"a"}}}
		case "verdict":
			return Response{ID: r.ID, Reason: "r.one"} // raising is a failure for a verdict
		}
		return Response{ID: r.ID, OK: true, Output: map[string]any{"n": 1}}
	})
	rep = (&Runner{Suite: scoringSuite(), Adapter: bad, Level: 2}).Run()
	want = map[string]string{"acc": "pass", "acc2": "fail", "rej": "repaired", "rej-any": "fail", "verdict": "fail",
		"list": "fail", "later": "fail"}
	for id, st := range want {
		if got := statuses(rep)[id]; got != st {
			t.Errorf("bad adapter: %s is %s, want %s", id, got, st)
		}
	}
	rep = (&Runner{Suite: scoringSuite(), Adapter: bad, Level: 1}).Run()
	if got := statuses(rep)["rej-any"]; got != "pass" {
		t.Errorf("level 1 ignores reasons, rej-any is %s", got)
	}

	// must_differ catches two right-looking answers that agree.
	same := adapterFunc(func(r Request) Response {
		return Response{ID: r.ID, OK: true, Output: map[string]any{"n": 1}}
	})
	s := scoringSuite()
	s.Cases[1].Output = json.RawMessage(`{"n":1}`)
	rep = (&Runner{Suite: s, Adapter: same, Level: 2, Filter: func(c Case) bool { return c.Family == "f1" && c.ID != "rej" }}).Run()
	if st := statuses(rep); st["acc"] != "fail" || st["acc2"] != "fail" || len(st) != 2 {
		t.Errorf("must_differ with equal answers: %v", st)
	}
}
