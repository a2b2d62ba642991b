package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

func TestDemoStory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tour")
	var out bytes.Buffer
	var steps []string
	r, res, err := Demo(ctx, DemoOptions{Dir: dir, Stdout: &out, Stderr: &out, Step: func(s DemoStep) { steps = append(steps, s.Command) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !strings.Contains(out.String(), "FAIL add 2 3 = 1, want 5\n") || !strings.HasSuffix(out.String(), "ok   add 2 3 = 5\n") {
		t.Fatalf("live output:\n%s", out.String())
	}
	if len(steps) != 12 || steps[0] != "init "+dir || !strings.HasPrefix(steps[11], "loop run --strategy numeric --name tune ") {
		t.Fatalf("steps %q", steps)
	}
	d, err := runs.DiffRevisions(ctx, r, res.Main, res.Fork, runs.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Identical || d.CommonAncestor != res.ForkEvent || len(d.OnlyA) != 3 || len(d.OnlyB) != 3 || len(d.Aligned) != 3 {
		t.Fatalf("diff of the attempts: %+v", d)
	}
	if d.A.Totals.Cost >= d.B.Totals.Cost || !d.ToolPathChanged {
		t.Fatalf("totals %+v / %+v", d.A.Totals, d.B.Totals)
	}
	last := d.Aligned[2]
	if last.Alignment != runs.AlignMatched || !slices.ContainsFunc(last.Changes, func(c runs.FieldChange) bool { return c.Field == "exit_code" }) {
		t.Fatalf("the final test run: %+v", last)
	}
	mainRun, _, err := runs.ResolveRun(ctx, r, res.Main)
	if err != nil {
		t.Fatal(err)
	}
	forkRun, _, err := runs.ResolveRun(ctx, r, res.Fork)
	if err != nil {
		t.Fatal(err)
	}
	if mainRun.Status != runs.StatusFailed || forkRun.Status != runs.StatusCompleted || forkRun.ForkedFrom == nil {
		t.Fatalf("statuses %s/%s forked_from %+v", mainRun.Status, forkRun.Status, forkRun.ForkedFrom)
	}
	fs, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
	if err != nil || !fs.OK() {
		t.Fatalf("fsck: %v %+v", err, fs)
	}
	v, err := runs.VerifyRevision(ctx, r, res.Fork)
	if err != nil || !v.OK {
		t.Fatalf("verify: %v %+v", err, v)
	}
	// The workspace holds the fixed code.
	calc, err := os.ReadFile(filepath.Join(dir, "calc.sh"))
	if err != nil || !strings.Contains(string(calc), "$(($1 + $2))") {
		t.Fatalf("calc.sh after the demo: %q %v", calc, err)
	}
}

func TestDemoRelease(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tour")
	var done []string
	opt := DemoOptions{Dir: dir, Stdout: io.Discard, Stderr: io.Discard,
		Rand: bytes.NewReader(bytes.Repeat([]byte{7}, 32)),
		Done: func(s DemoStep) { done = append(done, fmt.Sprintf("%T", s.Output)) }}
	r, res, err := Demo(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if res.Loop == nil || res.Loop.BestRef != "experiments/tune/best" || res.Loop.TotalSteps != 12 || float64(res.Loop.Best.Score) != -0.08203125 {
		t.Fatalf("loop %+v", res.Loop)
	}
	rel, err := DemoRelease(ctx, r, opt, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"*loops.LoopRunResult", "*loops.LoopShowResult", "*plumbing.KeygenResult", "demo.DemoPolicy",
		"*trust.PromoteResult", "*trust.AttestResult", "*trust.CandidatesResult", "*trust.PromoteResult", "*trust.PromotionsResult"}
	if strings.Join(done, " ") != strings.Join(want, " ") {
		t.Fatalf("outputs %q, want %q", done, want)
	}
	unmet := rel.Refused.Decision.Unmet()
	if rel.Refused.Promoted || len(unmet) != 1 || unmet[0].Requirement != "score quality >= 0.9" || !strings.Contains(unmet[0].Reason, "no evaluation") {
		t.Fatalf("refused %+v", rel.Refused)
	}
	if rel.Quality != 0.924 || !rel.Evaluation.Signed || rel.Evaluation.Signer != DemoSigner {
		t.Fatalf("evaluation %+v quality %v", rel.Evaluation, rel.Quality)
	}
	best, err := r.Resolve(ctx, "experiments/tune/best")
	if err != nil {
		t.Fatal(err)
	}
	if c := rel.Candidates.Candidates; len(c) != 1 || c[0].Run != best.String() || !c[0].Scores[0].Verified {
		t.Fatalf("candidates %+v", c)
	}
	promoted, err := r.Resolve(ctx, "promotions/release")
	if err != nil || promoted != best || !rel.Promoted.Promoted || rel.Promoted.Decision.Requirements[0].Attestation != rel.Evaluation.OID {
		t.Fatalf("promotions/release = %v (%v), want %v; %+v", promoted, err, best, rel.Promoted)
	}
	if p := rel.Promotions.Promotions; len(p) != 1 || len(p[0].History) != 1 || p[0].History[0].Why != "loop tune reached quality 0.924" {
		t.Fatalf("promotions %+v", p)
	}
	// The policy on disk is the one promote read, and it trusts the key the
	// demo wrote: a tampered evaluation key would not count.
	pol, err := trust.LoadPolicy(rel.Policy, r.Algo())
	if err != nil || pol.Keys[DemoKeyName].Fingerprint != rel.Key.Fingerprint || pol.ID.String() != rel.Promoted.PolicyID {
		t.Fatalf("policy %+v %v", pol, err)
	}
	fs, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
	if err != nil || !fs.OK() {
		t.Fatalf("fsck: %v %+v", err, fs)
	}
	if _, err := DemoRelease(ctx, r, opt, &DemoResult{}); err == nil {
		t.Fatal("DemoRelease without a loop succeeded")
	}
}

func TestDemoQuality(t *testing.T) {
	for _, tc := range []struct{ score, want float64 }{
		{0, 1}, {-0.08203125, 0.924}, {-1, 0.5}, {-0.111, 0.9}, {-0.12, 0.892}, {-42, 0.023}, {0.5, 0}, {math.NaN(), 0},
	} {
		if got := DemoQuality(tc.score); got != tc.want {
			t.Errorf("DemoQuality(%v) = %v, want %v", tc.score, got, tc.want)
		}
	}
}

func TestDemoRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "calc.sh"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Demo(context.Background(), DemoOptions{Dir: dir})
	if !errors.Is(err, ErrDemoDirNotEmpty) {
		t.Fatalf("err = %v, want ErrDemoDirNotEmpty", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "calc.sh")); string(b) != "mine\n" {
		t.Fatalf("the user's file was overwritten: %q", b)
	}
}

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"sh", "test.sh"}, "sh test.sh"},
		{[]string{"sh", "-c", "echo hi"}, "sh -c 'echo hi'"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"printf", ""}, "printf ''"},
	} {
		if got := runs.ShellQuote(tc.argv); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}
