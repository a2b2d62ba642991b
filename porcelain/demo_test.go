package porcelain

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/plumbing"
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
	if len(steps) != 11 || steps[0] != "init "+dir {
		t.Fatalf("steps %q", steps)
	}
	d, err := DiffRevisions(ctx, r, res.Main, res.Fork, DiffOptions{})
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
	if last.Alignment != AlignMatched || !hasChange(last.Changes, "exit_code") {
		t.Fatalf("the final test run: %+v", last)
	}
	mainRun, _, err := ResolveRun(ctx, r, res.Main)
	if err != nil {
		t.Fatal(err)
	}
	forkRun, _, err := ResolveRun(ctx, r, res.Fork)
	if err != nil {
		t.Fatal(err)
	}
	if mainRun.Status != StatusFailed || forkRun.Status != StatusCompleted || forkRun.ForkedFrom == nil {
		t.Fatalf("statuses %s/%s forked_from %+v", mainRun.Status, forkRun.Status, forkRun.ForkedFrom)
	}
	fs, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
	if err != nil || !fs.OK() {
		t.Fatalf("fsck: %v %+v", err, fs)
	}
	v, err := VerifyRevision(ctx, r, res.Fork)
	if err != nil || !v.OK {
		t.Fatalf("verify: %v %+v", err, v)
	}
	// The workspace holds the fixed code.
	calc, err := os.ReadFile(filepath.Join(dir, "calc.sh"))
	if err != nil || !strings.Contains(string(calc), "$(($1 + $2))") {
		t.Fatalf("calc.sh after the demo: %q %v", calc, err)
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
		if got := shellQuote(tc.argv); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}
