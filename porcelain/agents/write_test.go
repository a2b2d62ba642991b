package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/agents"
	"github.com/tinehq/tine/porcelain/runs"
)

// reflogActor returns the actor of ref's newest reflog row.
func (f *fixture) reflogActor(t *testing.T, ref string) string {
	t.Helper()
	r, err := plumbing.Open(f.root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := r.Refs().Reflog(ref)
	if err != nil || len(rows) == 0 {
		t.Fatalf("reflog %s: %v (%d rows)", ref, err, len(rows))
	}
	return rows[len(rows)-1].Actor
}

// loadRun loads the run at rev.
func (f *fixture) loadRun(t *testing.T, rev string) *runs.Run {
	t.Helper()
	r, err := plumbing.Open(f.root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run, _, err := runs.ResolveRun(context.Background(), r, rev)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestWriteTools drives the write tools through an agent's session: fork
// the fixture's main run, record on the fork, complete and resume it,
// evaluate and attest it; each result is checked in the repository.
func TestWriteTools(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	main := f.snapshot(t).refs["heads/main"]

	fork := call(t, cs, "fork", map[string]any{"source": "heads/main", "from": f.main[1], "ref": "experiments/agent", "reason": "try again"})
	if fork["ref"] != "experiments/agent" || fork["events"].(float64) != 2 || fork["from_event"] != f.main[1] {
		t.Fatalf("fork: %v", fork)
	}
	if a := f.reflogActor(t, "experiments/agent"); !strings.HasPrefix(a, "mcp") {
		t.Errorf("fork reflog actor %q, want mcp", a)
	}
	// The default name is chosen under experiments/ too.
	if d := call(t, cs, "fork", map[string]any{"source": "heads/main", "from": f.main[0]}); !strings.HasPrefix(d["ref"].(string), "experiments/main-") {
		t.Errorf("fork without ref: %v", d)
	}

	rec := call(t, cs, "record_event", map[string]any{"ref": "experiments/agent", "status": "completed",
		"event": `{"kind":"model","model":"m2","usage":{"input":3,"output":4},"output":"done"}`})
	run := f.loadRun(t, "experiments/agent")
	if rec["event"] != run.Events[len(run.Events)-1].ID.String() || run.Status != runs.StatusCompleted || len(run.Events) != 3 {
		t.Fatalf("record_event: %v; run has %d events, status %s", rec, len(run.Events), run.Status)
	}
	if p := run.Events[2].Parents; len(p) != 1 || p[0].String() != f.main[1] {
		t.Errorf("recorded event's parents %v, want the fork tip %s", p, f.main[1])
	}

	res := call(t, cs, "resume", map[string]any{"ref": "experiments/agent"})
	if res["previous_status"] != "completed" || f.loadRun(t, "experiments/agent").Status != runs.StatusRunning {
		t.Errorf("resume: %v", res)
	}

	ev := call(t, cs, "evaluate", map[string]any{"target": "experiments/agent", "signer": "bot",
		"scores": []map[string]any{{"name": "quality", "value": 0.75}}})
	if ev["signer"] != "mcp:bot" || ev["signed"] != false || ev["target"] != f.loadRun(t, "experiments/agent").ID.String() {
		t.Errorf("evaluate: %v", ev)
	}
	att := call(t, cs, "attest", map[string]any{"target": "experiments/agent", "claim": `{"kind":"review","verdict":"looks right"}`, "evidence": []string{f.main[1]}})
	if att["signer"] != "mcp" {
		t.Errorf("attest: %v", att)
	}
	shown := call(t, cs, "show", map[string]any{"rev": att["oid"]})
	payload := shown["payload"].(map[string]any)
	if payload["claim"].(map[string]any)["verdict"] != "looks right" || payload["evidence_ids"].([]any)[0] != f.main[1] {
		t.Errorf("attestation payload: %v", payload)
	}

	if got := f.snapshot(t).refs["heads/main"]; got != main {
		t.Errorf("heads/main moved: %s -> %s", main, got)
	}
}

// TestRefusalsWriteNothing: every refused call is an MCP error and leaves
// every ref and the object count as they were.
func TestRefusalsWriteNothing(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	event := `{"kind":"note"}`
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"fork onto heads/main", "fork", map[string]any{"source": "experiments/explore", "from": f.main[0], "ref": "heads/main"}, "experiments/"},
		{"fork onto refs/heads/x", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "refs/heads/x"}, "experiments/"},
		{"fork onto experiments/../heads/x", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "experiments/../heads/x"}, "reserved"},
		{"fork onto a short name for heads/main", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "main"}, "experiments/"},
		{"fork onto promotions/x", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "promotions/x"}, "heads/ or experiments/"},
		{"fork onto tags/x", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "tags/x"}, ""},
		{"fork onto an existing ref", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "experiments/explore"}, "exists"},
		{"record on heads/main", "record_event", map[string]any{"ref": "heads/main", "event": event}, "experiments/"},
		{"record on REFS/HEADS/MAIN", "record_event", map[string]any{"ref": "REFS/HEADS/MAIN", "event": event}, ""},
		{"record reading a file", "record_event", map[string]any{"ref": "experiments/explore", "event": `{"kind":"tool","output":{"path":"/etc/passwd"}}`}, "path"},
		{"record a bad event", "record_event", map[string]any{"ref": "experiments/explore", "event": `{"kind":"a","kind":"b"}`}, "duplicate"},
		{"record with an unknown status", "record_event", map[string]any{"ref": "experiments/explore", "event": event, "status": "merged"}, "status"},
		{"resume heads/main", "resume", map[string]any{"ref": "heads/main"}, "experiments/"},
		{"evaluate heads/main", "evaluate", map[string]any{"target": "heads/main", "scores": []map[string]any{{"name": "q", "value": 1}}}, "experiments/"},
		{"evaluate a run named by oid", "evaluate", map[string]any{"target": f.snapshot(t).refs["experiments/explore"], "scores": []map[string]any{{"name": "q", "value": 1}}}, "object name"},
		{"attest heads/main", "attest", map[string]any{"target": "heads/main", "claim": `{"kind":"review"}`}, "experiments/"},
		{"attest a gate claim", "attest", map[string]any{"target": "experiments/explore", "claim": `{"kind":"gate","decision":"pass"}`}, "reserved"},
		{"attest as a signer with a newline", "attest", map[string]any{"target": "experiments/explore", "claim": `{"kind":"review"}`, "signer": "bot\nrelease-key signed"}, "signer"},
		{"evaluate as a signer with a colon", "evaluate", map[string]any{"target": "experiments/explore", "scores": []map[string]any{{"name": "q", "value": 1}}, "signer": "ci:release"}, "signer"},
		{"attest an evaluation claim", "attest", map[string]any{"target": "experiments/explore", "claim": `{"kind":"evaluation","scores":{"q":1}}`}, "reserved"},
		{"promote without --allow-promotion", "promote", map[string]any{"target": "experiments/explore", "name": "production"}, "promote"},
		{"an argument starting with -", "fork", map[string]any{"source": "--help", "from": f.main[0], "ref": "experiments/y"}, "begins with '-'"},
		{"a ref starting with -", "record_event", map[string]any{"ref": "-experiments/y", "event": event}, "begins with '-'"},
		{"evidence starting with -", "attest", map[string]any{"target": "experiments/explore", "claim": `{"kind":"review"}`, "evidence": []string{"-x"}}, "begins with '-'"},
		{"a read argument starting with -", "log", map[string]any{"rev": "-n"}, "begins with '-'"},
		{"an oversized event", "record_event", map[string]any{"ref": "experiments/explore", "event": `{"kind":"note","text":"` + strings.Repeat("x", 1<<20) + `"}`}, "maxLength"},
		{"an oversized reason", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "experiments/y", "reason": strings.Repeat("r", 1025)}, "maxLength"},
		// 600 code points pass the schema's maxLength; 1200 bytes do not.
		{"an oversized reason in bytes", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "experiments/y", "reason": strings.Repeat("é", 600)}, "1200 bytes, at most 1024"},
		{"too many scores", "evaluate", map[string]any{"target": "experiments/explore", "scores": manyScores(257)}, "maxItems"},
		{"an oversized depth", "context", map[string]any{"event": f.main[2], "depth": 1001}, "maximum"},
		{"an unknown argument", "fork", map[string]any{"source": "heads/main", "from": f.main[0], "ref": "experiments/y", "force": true}, "force"},
		{"a missing argument", "fork", map[string]any{"source": "heads/main"}, "from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.snapshot(t)
			msg := callRefused(t, cs, tc.tool, tc.args)
			t.Logf("%.200s", msg)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %.300q does not say %q", msg, tc.want)
			}
			before.same(t, f.snapshot(t), tc.name)
		})
	}
}

// TestForkOntoTakenDefaultRefWritesNothing: a fork without a ref whose
// default name (experiments/<source>-<event>) is taken is refused before
// its run object is written, as a fork onto a named taken ref is.
func TestForkOntoTakenDefaultRefWritesNothing(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	args := map[string]any{"source": "heads/main", "from": f.main[0]}
	first := call(t, cs, "fork", args)
	before := f.snapshot(t)
	args["reason"] = "a different run object, same default ref"
	msg := callRefused(t, cs, "fork", args)
	if !strings.Contains(msg, first["ref"].(string)) || !strings.Contains(msg, "exists") {
		t.Errorf("error %q does not name the taken ref %v", msg, first["ref"])
	}
	before.same(t, f.snapshot(t), "fork onto a taken default ref")
}

// TestRefusalTextIsBounded: a refusal quotes an oversized argument (the
// SDK's schema check does, and an unknown tool's name is quoted) cut to
// agents.MaxErrorText bytes, still naming the argument and its bound,
// rather than sending the megabyte back.
func TestRefusalTextIsBounded(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	event := `{"kind":"note","text":"` + strings.Repeat("x", 1<<20) + `"}`
	msg := callRefused(t, cs, "record_event", map[string]any{"ref": "experiments/explore", "event": event})
	if len(msg) > agents.MaxErrorText {
		t.Errorf("tool error is %d bytes, more than %d", len(msg), agents.MaxErrorText)
	}
	for _, want := range []string{"/properties/event", "maxLength", "more than 1048576", "bytes cut"} {
		if !strings.Contains(msg, want) {
			t.Errorf("tool error %q does not say %q", msg, want)
		}
	}
	_, err := callResult(t, cs, strings.Repeat("n", 100<<10), map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") || len(err.Error()) > 2*agents.MaxErrorText {
		t.Errorf("unknown tool with a 100 KiB name: %d bytes of error: %.200v", len(fmt.Sprint(err)), err)
	}
}

// TestConcurrentWritesAllLand: an agent's parallel calls recording onto
// one run all succeed, each event on top of the previous one, rather than
// all but one losing the ref's compare-and-swap.
func TestConcurrentWritesAllLand(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	const n = 12
	errs := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := callResult(t, cs, "record_event", map[string]any{"ref": "experiments/parallel", "event": fmt.Sprintf(`{"kind":"note","output":"n%d"}`, i)})
			switch {
			case err != nil:
				errs <- err.Error()
			case res.IsError:
				errs <- resultText(res)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a parallel record_event failed: %s", e)
	}
	run := f.loadRun(t, "experiments/parallel")
	if len(run.Events) != n {
		t.Fatalf("run has %d events, want %d", len(run.Events), n)
	}
	for i, ev := range run.Events[1:] {
		if len(ev.Parents) != 1 || ev.Parents[0] != run.Events[i].ID {
			t.Errorf("event %d's parents %v, want the one before it", i+1, ev.Parents)
		}
	}
}

// manyScores returns n distinct scores.
func manyScores(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"name": "s" + strings.Repeat("x", i%5) + string(rune('a'+i%26)), "value": 1}
	}
	return out
}

// TestReadOnlyServerHasNoWriteTools: with ReadOnly a write tool is unknown
// and nothing is written.
func TestReadOnlyServerHasNoWriteTools(t *testing.T) {
	f := newFixture(t)
	opt := f.options()
	opt.ReadOnly = true
	cs := connect(t, opt)
	before := f.snapshot(t)
	for _, name := range []string{"fork", "record_event", "resume", "evaluate", "attest", "promote"} {
		callRefused(t, cs, name, map[string]any{"ref": "experiments/z", "source": "heads/main", "from": f.main[0]})
	}
	call(t, cs, "log", map[string]any{})
	before.same(t, f.snapshot(t), "read-only")
}

// TestPromoteThroughPolicy: with AllowPromotion, promote still needs the
// operator's release policy to hold: refused (nothing moves) until the run
// carries the score the policy asks for, then promotions/NAME moves with
// mcp as the reflog's actor.
func TestPromoteThroughPolicy(t *testing.T) {
	f := newFixture(t)
	write(t, f.dir+"/tine-policy.json", `{"version":1,"promotions":{"staging":{"unsigned_signers":["mcp"],"scores":{"quality":{"min":0.9}}}}}`)
	opt := f.options()
	opt.AllowPromotion = true
	cs := connect(t, opt)

	before := f.snapshot(t)
	msg := callRefused(t, cs, "promote", map[string]any{"target": "experiments/explore", "name": "staging"})
	if !strings.Contains(msg, "quality") {
		t.Errorf("refusal %q does not name the unmet score", msg)
	}
	before.same(t, f.snapshot(t), "promote refused")
	callRefused(t, cs, "promote", map[string]any{"target": "experiments/explore", "name": "nope"})
	before.same(t, f.snapshot(t), "promote of a name the policy lacks")

	call(t, cs, "evaluate", map[string]any{"target": "experiments/explore", "scores": []map[string]any{{"name": "quality", "value": 0.95}}})
	res := call(t, cs, "promote", map[string]any{"target": "experiments/explore", "name": "staging", "reason": "agent release"})
	explore := f.snapshot(t).refs["experiments/explore"]
	if res["promoted"] != true || f.snapshot(t).refs["promotions/staging"] != explore {
		t.Fatalf("promote: %v", res)
	}
	if a := f.reflogActor(t, "promotions/staging"); !strings.HasPrefix(a, "mcp: agent release [policy ") {
		t.Errorf("promotion reflog actor %q", a)
	}
	// No --force: a second promotion must name the value it replaces.
	callRefused(t, cs, "promote", map[string]any{"target": "experiments/explore", "name": "staging"})
}

// TestEvaluateValueExact: evaluate's value is read as the decimal text the
// agent sent and checked as tine evaluate checks --score. An integer past
// ±(2^53-1) and a decimal the stored double would spell as another number
// are refused, naming the value, and write nothing; the largest exact
// integer and a short decimal are stored as given (the integer as an
// integer). Before, the value went through a float64:
// 9007199254740993 was stored as 9007199254740992 and
// 0.1000000000000000055511151231257827 as 0.1, without a word.
func TestEvaluateValueExact(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	score := func(v string) map[string]any {
		return map[string]any{"target": "experiments/explore", "scores": []map[string]any{{"name": "q", "value": json.Number(v)}}}
	}
	for v, want := range map[string]string{
		"9007199254740993":                     "canon.integer-overflow",
		"-9007199254740992":                    "canon.integer-overflow",
		"0.1000000000000000055511151231257827": "would be stored as 0.1;",
		"1e-400":                               "would be stored as 0;",
	} {
		before := f.snapshot(t)
		msg := callRefused(t, cs, "evaluate", score(v))
		if !strings.Contains(msg, v) || !strings.Contains(msg, want) {
			t.Errorf("value %s: error %q does not name it and say %q", v, msg, want)
		}
		before.same(t, f.snapshot(t), "evaluate "+v)
	}
	for v, stored := range map[string]string{
		"9007199254740991": `"q":9007199254740991}`,
		"0.1":              `"q":0.1}`,
		"3":                `"q":3}`,
	} {
		res := call(t, cs, "evaluate", score(v))
		o := f.object(t, res["oid"].(string))
		if !strings.Contains(string(o.Body), stored) {
			t.Errorf("value %s: attestation %s does not hold %s", v, o.Body, stored)
		}
	}
}

// object reads the stored object oid.
func (f *fixture) object(t *testing.T, oid string) *objects.Object {
	t.Helper()
	id, err := objects.ParseOID(oid)
	if err != nil {
		t.Fatal(err)
	}
	r, err := plumbing.Open(f.root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	o, err := r.Objects().Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
