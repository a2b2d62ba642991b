package loop

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// traceRecorder renders every record as one line of text: the golden format.
type traceRecorder struct {
	b     strings.Builder
	iters []IterationRecord
	forks []ForkRecord
	ends  []EndRecord
	start *StartRecord
	fin   *FinishRecord
}

func canon(v objects.Value) string {
	b, err := objects.CanonV3(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func (t *traceRecorder) Start(_ context.Context, r StartRecord) error {
	t.start = &r
	fmt.Fprintf(&t.b, "start goal=%q state=%s\n", r.Goal, r.Initial.Stored)
	return nil
}

func (t *traceRecorder) Iteration(_ context.Context, r IterationRecord) error {
	t.iters = append(t.iters, r)
	fmt.Fprintf(&t.b, "#%d %s step=%d state=%s score=%s stop=%v obs=%q", r.Iteration, r.BranchID, r.BranchStep,
		r.State.Stored, formatFloat(r.Score), r.Stop, r.Observation)
	if r.BestChanged {
		t.b.WriteString(" best")
	}
	t.b.WriteString("\n")
	for _, c := range r.Candidates {
		fmt.Fprintf(&t.b, "  cand %d rank=%d score=%s %s %s state=%s\n", c.Index, c.Rank, formatFloat(c.Score),
			c.Outcome, c.BranchID, c.State.Stored)
	}
	return nil
}

func (t *traceRecorder) Fork(_ context.Context, r ForkRecord) error {
	t.forks = append(t.forks, r)
	fmt.Fprintf(&t.b, "  fork %s from %s@#%d\n", r.BranchID, r.ParentBranch, r.FromIteration)
	return nil
}

func (t *traceRecorder) End(_ context.Context, r EndRecord) error {
	t.ends = append(t.ends, r)
	fmt.Fprintf(&t.b, "  end %s %s: %s\n", r.BranchID, r.Gate, r.Reason)
	return nil
}

func (t *traceRecorder) Finish(_ context.Context, r FinishRecord) error {
	t.fin = &r
	fmt.Fprintf(&t.b, "finish gate=%s steps=%d cost=%s branches=%d\n", r.Gate, r.TotalSteps, formatFloat(r.TotalCost), len(r.Branches))
	if r.Best != nil {
		fmt.Fprintf(&t.b, "best %s #%d score=%s state=%s obs=%q\n", r.Best.BranchID, r.Best.Iteration,
			formatFloat(r.Best.Score), canon(r.Best.State), r.Best.Observation)
	}
	return nil
}

// fixedClock is a fake clock that advances by step on every reading.
func fixedClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// runTraced runs cfg with a trace recorder and a pinned clock.
func runTraced(t *testing.T, cfg Config) (*Result, *traceRecorder) {
	t.Helper()
	tr := &traceRecorder{}
	cfg.Recorder = tr
	if cfg.Now == nil {
		cfg.Now = fixedClock(time.Millisecond)
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, tr
}

// checkGolden compares got with testdata/golden/name, or rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with -update to create)", name, err)
	}
	if string(want) != got {
		t.Errorf("trace differs from %s (rerun with -update after checking):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, x, y)
		}
	}
	return "(no line differs)"
}

func obj(kv ...any) objects.Value {
	var ms []objects.Member
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := Sanitize(kv[i+1])
		ms = append(ms, objects.Member{Key: kv[i].(string), Value: v})
	}
	return objects.ObjectValue(ms...)
}

func f64(f float64) *float64 { return &f }
