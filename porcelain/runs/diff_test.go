package runs

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// forkedRuns builds the story tine diff is for: two attempts that share
// their first two steps and then diverge.
//
//	A: read -> test(fail) -> sed -> test(pass)
//	B: read -> test(fail) -> patch -> test(pass, other output)
func forkedRuns(t *testing.T) (*runFixture, *Run, *Run, []objects.OID) {
	f := newRunFixture(t)
	read := f.command(objects.OID{}, "cat main.go", 0, "package main\n")
	fail := f.command(read, "go test ./...", 1, "--- FAIL: TestAdd\nFAIL\n")
	a3 := f.command(fail, "sed -i s/-/+/ add.go", 0, "")
	a4 := f.command(a3, "go test ./...", 0, "ok  \tdemo\t0.01s\n")
	b3 := f.command(fail, "patch -p1 < fix.diff", 0, "patching file add.go\n")
	b4 := f.command(b3, "go test ./...", 0, "ok  \tdemo\t0.02s\n")
	a := f.run([]objects.OID{read, fail, a3, a4}, map[string]any{"status": "completed"})
	b := f.run([]objects.OID{read, fail, b3, b4}, map[string]any{"status": "completed"})
	return f, a, b, []objects.OID{read, fail, a3, a4, b3, b4}
}

func TestDiffForkedRuns(t *testing.T) {
	f, a, b, ids := forkedRuns(t)
	read, fail, a3, a4, b3, b4 := ids[0], ids[1], ids[2], ids[3], ids[4], ids[5]
	res, err := Diff(f.ctx, f.st, a, b, DiffOptions{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Identical {
		t.Fatal("diverged runs reported identical")
	}
	if got := strings.Join(res.Common, ","); got != read.String()+","+fail.String() {
		t.Fatalf("common = %s", got)
	}
	if res.CommonAncestor != fail.String() {
		t.Fatalf("common ancestor = %s, want the failing test %s", res.CommonAncestor, fail)
	}
	if len(res.OnlyA) != 2 || res.OnlyA[0].OID != a3.String() || res.OnlyA[1].OID != a4.String() || res.OnlyA[0].Position != 2 {
		t.Fatalf("only_a = %+v", res.OnlyA)
	}
	if len(res.OnlyB) != 2 || res.OnlyB[0].OID != b3.String() || res.OnlyB[1].OID != b4.String() {
		t.Fatalf("only_b = %+v", res.OnlyB)
	}
	if len(res.Aligned) != 2 {
		t.Fatalf("aligned = %+v", res.Aligned)
	}
	// sed and patch are different programs at the same place: replaced.
	p0 := res.Aligned[0]
	if p0.Alignment != AlignReplaced || p0.A.OID != a3.String() || p0.B.OID != b3.String() {
		t.Fatalf("first pair %+v", p0)
	}
	if !hasChange(p0.Changes, "command") || !hasChange(p0.Changes, "output_blob") || hasChange(p0.Changes, "exit_code") {
		t.Fatalf("first pair changes %+v", p0.Changes)
	}
	// Both runs end with go test: matched, only the output differs.
	p1 := res.Aligned[1]
	if p1.Alignment != AlignMatched || fieldNames(p1.Changes) != "output_blob" {
		t.Fatalf("second pair %s %+v", p1.Alignment, p1.Changes)
	}
	if len(p1.Text) != 1 || p1.Text[0].Field != "output_blob" {
		t.Fatalf("text diffs %+v", p1.Text)
	}
	u := p1.Text[0].Diff.Unified
	if !strings.Contains(u, "-ok  \tdemo\t0.01s\n+ok  \tdemo\t0.02s\n") {
		t.Fatalf("unified diff of the outputs:\n%s", u)
	}
	if res.ToolPathChanged != true || strings.Join(res.A.ToolPath, " ") != "shell:cat shell:go shell:sed shell:go" {
		t.Fatalf("tool path A %v changed=%v", res.A.ToolPath, res.ToolPathChanged)
	}
	if res.Delta.Events != 0 || res.Delta.Duration != 0 {
		t.Fatalf("delta %+v", res.Delta)
	}
}

func TestDiffIdenticalRuns(t *testing.T) {
	f, a, _, ids := forkedRuns(t)
	// Another run object over the same events (a different status) is
	// the same work: identical, nothing divergent.
	same := f.run(ids[:4], map[string]any{"status": "failed"})
	if same.ID == a.ID {
		t.Fatal("fixture should make a distinct run object")
	}
	for _, pair := range [][2]*Run{{a, a}, {a, same}} {
		res, err := Diff(f.ctx, f.st, pair[0], pair[1], DiffOptions{Text: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Identical || len(res.OnlyA) != 0 || len(res.OnlyB) != 0 || len(res.Aligned) != 0 || res.ToolPathChanged {
			t.Fatalf("identical runs: %+v", res)
		}
		if len(res.Common) != 4 || res.CommonAncestor != ids[3].String() {
			t.Fatalf("common %v ancestor %s", res.Common, res.CommonAncestor)
		}
		if res.Delta != (Delta{}) {
			t.Fatalf("delta %+v", res.Delta)
		}
	}
}

func TestDiffCostAndToolPath(t *testing.T) {
	f := newRunFixture(t)
	plan := f.event(nil, map[string]any{"kind": "model", "model": "small-1", "cost": 0.01, "usage": map[string]any{"input": 100, "output": 20}})
	a2 := f.event([]objects.OID{plan}, map[string]any{"kind": "model", "model": "small-1", "cost": 0.02, "usage": map[string]any{"input": 300, "output": 50}, "score": 0.4})
	b2 := f.event([]objects.OID{plan}, map[string]any{"kind": "model", "model": "large-2", "cost": 0.5, "usage": map[string]any{"input": 300, "output": 80, "reasoning": 40}, "score": 0.9})
	b3 := f.event([]objects.OID{b2}, map[string]any{"kind": "tool", "tool": "search", "duration": 2})
	a := f.run([]objects.OID{plan, a2}, nil)
	b := f.run([]objects.OID{plan, b2, b3}, nil)
	res, err := Diff(f.ctx, f.st, a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Identical || res.CommonAncestor != plan.String() {
		t.Fatalf("identical=%v ancestor=%s", res.Identical, res.CommonAncestor)
	}
	if got := strings.Join(res.B.ToolPath, " "); got != "small-1 large-2 search" || !res.ToolPathChanged {
		t.Fatalf("tool path B = %q", got)
	}
	near := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	if !near(res.Delta.Cost, 0.48) || res.Delta.Tokens != 30 || res.Delta.Events != 1 || res.Delta.Duration != 2 {
		t.Fatalf("delta %+v", res.Delta)
	}
	if res.Delta.Score == nil || !near(*res.Delta.Score, 0.5) {
		t.Fatalf("score delta %v", res.Delta.Score)
	}
	if len(res.Aligned) != 1 || res.Aligned[0].Alignment != AlignReplaced {
		t.Fatalf("aligned %+v", res.Aligned)
	}
	if got := fieldNames(res.Aligned[0].Changes); got != "model,score,cost,tokens,usage.output,usage.reasoning" {
		t.Fatalf("changed fields %s", got)
	}
	for _, c := range res.Aligned[0].Changes {
		if c.Field == "usage.reasoning" && (c.Old != nil || c.New != float64(40)) {
			t.Fatalf("usage.reasoning %v -> %v", c.Old, c.New)
		}
	}
	if len(res.OnlyB) != 2 || res.OnlyB[1].Label != "search" {
		t.Fatalf("only_b %+v", res.OnlyB)
	}
}

func hasChange(cs []FieldChange, field string) bool {
	for _, c := range cs {
		if c.Field == field {
			return true
		}
	}
	return false
}

func fieldNames(cs []FieldChange) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Field)
	}
	return strings.Join(out, ",")
}
