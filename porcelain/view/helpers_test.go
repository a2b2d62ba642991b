package view_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/trust"
)

// epoch is the fixtures' clock start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// hostile is recorded text that would break out of an unescaped Mermaid
// label, DOT string or HTML page.
const hostile = `\N & #quot; "]) --> x; <script>alert(1)</script> ` + "`md` |[a]{c}\nz"

// fixture builds a deterministic repository (fixed clock, fixed payloads,
// so fixed oids): heads/main, four events, the last failed with hostile
// text in its fields, status failed; experiments/retry forked from the
// second event with two events of its own, completed, with an evaluation
// of two scores.
func fixture(t testing.TB) *plumbing.Repo {
	t.Helper()
	r := runstest.NewRepo(t)
	ctx := t.Context()
	imp := func(ref, lines string) {
		t.Helper()
		_, err := runs.Import(ctx, r, runs.ImportOptions{Ref: ref, Input: strings.NewReader(lines), Now: runstest.FakeClock(epoch, time.Second)})
		if err != nil {
			t.Fatalf("import %s: %v", ref, err)
		}
	}
	imp("heads/main", `{"kind":"note","attributes":{"text":"task: fix add"},"time_unix":1767323045}
{"kind":"tool","tool":"sh","attributes":{"exit_code":0},"output":"ok\n","time_unix":1767323046}
{"kind":"model","model":"small-model","cost":0.002,"usage":{"input_tokens":120,"output_tokens":30},"time_unix":1767323047}
`)
	hostileJSON := fmt.Sprintf("%q", hostile)
	runstest.AppendEvent(t, r, "heads/main", `{"kind":"tool","tool":`+hostileJSON+`,"error":`+hostileJSON+`,"attributes":{"exit_code":1},"time_unix":1767323048}`, runstest.FakeClock(epoch, time.Second))
	if _, err := runs.AppendEvent(ctx, r, runs.AppendEventOptions{Ref: "heads/main", Status: runs.StatusFailed, Now: runstest.FakeClock(epoch, time.Second),
		Data: []byte(`{"kind":"done","score":0.25,"time_unix":1767323049}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Fork(ctx, r, runs.ForkOptions{Source: "heads/main", From: "heads/main~3", Ref: "experiments/retry", Reason: "try a larger model", Now: runstest.FakeClock(epoch, time.Second)}); err != nil {
		t.Fatal(err)
	}
	imp("experiments/retry", `{"kind":"model","model":"large-model","cost":0.02,"usage":{"input_tokens":120,"output_tokens":60},"time_unix":1767323050}
{"kind":"tool","tool":"sh","attributes":{"exit_code":0},"score":1,"time_unix":1767323051}
`)
	if _, err := runs.AppendEvent(ctx, r, runs.AppendEventOptions{Ref: "experiments/retry", Status: runs.StatusCompleted, Now: runstest.FakeClock(epoch, time.Second),
		Data: []byte(`{"kind":"done","time_unix":1767323052}`)}); err != nil {
		t.Fatal(err)
	}
	var scores []trust.Score
	for _, arg := range []string{"accuracy=0.9", "tests=1"} {
		s, err := trust.ParseScore(arg)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, s)
	}
	if _, err := trust.Evaluate(ctx, r, trust.EvaluateOptions{Target: "experiments/retry", Signer: "ci", Scores: scores}); err != nil {
		t.Fatal(err)
	}
	return r
}

// chain imports n linear events onto ref in one write (parent of the
// first: the ref's tips), each with its own time, the first at start.
func chain(t testing.TB, r *plumbing.Repo, ref string, n int, start int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"kind":"step","attributes":{"i":%d},"time_unix":%d}`+"\n", i, start+i)
	}
	if _, err := runs.Import(t.Context(), r, runs.ImportOptions{Ref: ref, Input: strings.NewReader(b.String()), Now: runstest.FakeClock(epoch, time.Second)}); err != nil {
		t.Fatalf("import %d events onto %s: %v", n, ref, err)
	}
}
