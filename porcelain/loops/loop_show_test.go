package loops_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/tinehq/tine/loop"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/loops"
	"github.com/tinehq/tine/porcelain/runs"
)

// engineTrace runs a loop without recording: the oracle a recorded
// trajectory must equal.
func engineTrace(t *testing.T, step loop.Step, initial objects.Value, p loop.Policy) (*loop.Result, []loop.IterationRecord) {
	t.Helper()
	rec := &traceRecorder{}
	res, err := loop.Run(context.Background(), loop.Config{Step: step, Initial: initial, Policy: p, Now: loopClock(), Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	return res, rec.its
}

// traceRecorder keeps the iterations the engine hands out.
type traceRecorder struct{ its []loop.IterationRecord }

func (r *traceRecorder) Start(context.Context, loop.StartRecord) error { return nil }
func (r *traceRecorder) Iteration(_ context.Context, it loop.IterationRecord) error {
	r.its = append(r.its, it)
	return nil
}
func (r *traceRecorder) Fork(context.Context, loop.ForkRecord) error     { return nil }
func (r *traceRecorder) End(context.Context, loop.EndRecord) error       { return nil }
func (r *traceRecorder) Finish(context.Context, loop.FinishRecord) error { return nil }

// requireSameTrajectory checks a recorded loop against the engine's trace:
// every iteration's branch, score, observation and state digest, and how
// every branch ended.
func requireSameTrajectory(t *testing.T, show *loops.LoopShowResult, res *loop.Result, its []loop.IterationRecord) {
	t.Helper()
	if len(show.Steps) != len(its) {
		t.Fatalf("recorded %d iterations, engine ran %d", len(show.Steps), len(its))
	}
	for i, it := range its {
		s := show.Steps[i]
		if s.Iteration != it.Iteration || s.Branch != it.BranchID || float64(s.Score) != it.Score ||
			s.Observation != it.Observation || s.StateDigest != it.State.Digest.String() {
			t.Fatalf("iteration %d: recorded %+v, engine %s %v %q %s", i+1, s, it.BranchID, it.Score, it.Observation, it.State.Digest)
		}
	}
	if len(show.Branches) != len(res.Branches) {
		t.Fatalf("recorded %d branches, engine %d", len(show.Branches), len(res.Branches))
	}
	for i, b := range res.Branches {
		got := show.Branches[i]
		if got.ID != b.ID || got.Gate != string(b.Gate) || got.Reason != b.Reason || got.Steps != b.Steps || got.Parent != b.Parent {
			t.Fatalf("branch %d: recorded %+v, engine %s %s %q %d steps", i, got, b.ID, b.Gate, b.Reason, b.Steps)
		}
	}
	if res.Best != nil && (show.BestScore == nil || float64(*show.BestScore) != res.Best.Score) {
		t.Fatalf("best score recorded %v, engine %v", show.BestScore, res.Best.Score)
	}
}

func TestLoopGoldenNumericT1Reread(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	if _, err := loops.LoopRun(ctx, r, numericT1("t1")); err != nil {
		t.Fatal(err)
	}
	show, err := loops.LoopShow(ctx, r, "t1")
	if err != nil {
		t.Fatal(err)
	}
	res, its := engineTrace(t, loop.Numeric(42, 3.5, 0.01), objects.ObjectValue(objects.Member{Key: "x", Value: objects.Float(0)}),
		loop.Policy{Width: 2, MaxBranches: 4, MaxSteps: 20})
	requireSameTrajectory(t, show, res, its)
	if show.BestFirst != 16 || show.BestBranch != "alt-b12" || show.Gate != "max-steps" || show.Goal != "Find x near 42.0" {
		t.Fatalf("best first %d on %s, gate %s, goal %q", show.BestFirst, show.BestBranch, show.Gate, show.Goal)
	}
	// The evaluated state is stored as a blob whose oid is its digest.
	run := loadRef(t, r, "experiments/t1/alt-b12")
	last := run.Events[len(run.Events)-1]
	if last.Kind != "done" {
		t.Fatalf("alt-b12 ends with %q, want done", last.Kind)
	}
	it := run.Events[len(run.Events)-2]
	dg, _ := it.Attributes.Get("state_digest")
	if it.InputBlob.String() != dg.Str {
		t.Fatalf("input_blob %s, state_digest %s", it.InputBlob, dg.Str)
	}
	b, err := r.Objects().Get(ctx, it.InputBlob)
	if err != nil || string(b.Body) != `{"step":8,"x":41.994873046875}` {
		t.Fatalf("stored state %q (%v)", b.Body, err)
	}
}

func TestLoopGoldenTextT3Reread(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	goal := "clear and concise status update"
	res0, err := loops.LoopRun(ctx, r, loops.LoopRunOptions{Name: "t3", Strategy: loops.LoopStrategyText,
		Goal: goal, Start: "start draft", Width: 2, MaxBranches: 3, MaxSteps: 25, Now: loopClock()})
	if err != nil {
		t.Fatal(err)
	}
	if res0.Best == nil || res0.Best.Branch != "root" || float64(res0.Best.Score) != 0.97 || len(res0.Branches) != 13 {
		t.Fatalf("best %+v, %d branches; want root 0.97, 13", res0.Best, len(res0.Branches))
	}
	show, err := loops.LoopShow(ctx, r, "experiments/t3")
	if err != nil {
		t.Fatal(err)
	}
	res, its := engineTrace(t, loop.Text(goal, "clear", 40), objects.ObjectValue(objects.Member{Key: "text", Value: objects.String("start draft")}),
		loop.Policy{Width: 2, MaxBranches: 3, MaxSteps: 25})
	requireSameTrajectory(t, show, res, its)
	requireFsck(t, r)
}

// messyStep returns metadata canonical JSON cannot hold.
func messyStep(_ context.Context, in loop.StepInput) (loop.StepResult, error) {
	cyc := map[string]any{}
	cyc["self"] = cyc
	return loop.StepResult{Score: 1, Stop: true, Observation: "messy",
		Metadata: map[string]any{"nan": math.NaN(), "inf": math.Inf(1), "cycle": cyc, "keys": map[int]string{1: "a"}}}, nil
}

func TestLoopSanitizedCounted(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	res, err := loops.LoopRun(ctx, r, loops.LoopRunOptions{Name: "messy", Step: messyStep, Now: loopClock()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sanitized < 4 {
		t.Fatalf("sanitized %d, want at least 4 (NaN, Infinity, cycle, int key)", res.Sanitized)
	}
	run := loadRef(t, r, "experiments/messy/root")
	var it *runs.Event
	for _, e := range run.Events {
		if p, _ := e.Attributes.Get("phase"); p.Str == loops.LoopPhaseIteration {
			it = e
		}
	}
	if it == nil {
		t.Fatal("no iteration event")
	}
	n, _ := it.Attributes.Get("sanitized")
	md, _ := it.Attributes.Get("metadata")
	nan, _ := md.Get("nan")
	if n.Int != int64(res.Sanitized) || nan.Str != "NaN" {
		t.Fatalf("event sanitized %v, metadata.nan %v", n, nan)
	}
	show, err := loops.LoopShow(ctx, r, "messy")
	if err != nil || show.Sanitized != res.Sanitized {
		t.Fatalf("show sanitized %v (%v)", show, err)
	}
	requireFsck(t, r)

	_, err = loops.LoopRun(ctx, r, loops.LoopRunOptions{Name: "strict", Step: messyStep, Strict: true, Now: loopClock()})
	if !errors.Is(err, loop.ErrUnrecordable) {
		t.Fatalf("strict: %v, want ErrUnrecordable", err)
	}
	requireFsck(t, r)
}

func TestLoopDiffLoopsAndBranches(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	opt := numericT1("a")
	if _, err := loops.LoopRun(ctx, r, opt); err != nil {
		t.Fatal(err)
	}
	opt = numericT1("b")
	opt.MaxSteps = 30
	if _, err := loops.LoopRun(ctx, r, opt); err != nil {
		t.Fatal(err)
	}
	d, err := loops.LoopDiff(ctx, r, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if d.Shared != 20 || d.DivergeAt != 21 || d.AtA != nil || d.AtB == nil || d.AtB.Iteration != 21 || d.SharedEvents != 0 {
		t.Fatalf("diff a b: shared %d, diverge %d, at %v %v, same events %d", d.Shared, d.DivergeAt, d.AtA, d.AtB, d.SharedEvents)
	}
	d, err = loops.LoopDiff(ctx, r, "a/alt-b10", "experiments/a/alt-b12")
	if err != nil {
		t.Fatal(err)
	}
	// alt-b12 forked from alt-b10 at #7: both hold root's #1, #2, #4, #6
	// and alt-b10's #7, then alt-b10 goes on at #18, alt-b12 at #8.
	if d.SharedEvents != 5 || d.Shared != 5 || d.DivergeAt != 6 || d.AtA.Iteration != 18 || d.AtB.Iteration != 8 {
		t.Fatalf("diff branches: %+v", d)
	}
	// a/best is the best branch's run under its own name: alt-b12 (T1).
	d, err = loops.LoopDiff(ctx, r, "a/best", "a/alt-b12")
	if err != nil {
		t.Fatal(err)
	}
	if d.A.Branch != "alt-b12" || d.DivergeAt != 0 || d.A.Steps != d.B.Steps || d.A.Gate != d.B.Gate || d.A.Gate == "" {
		t.Fatalf("diff best alt-b12: %+v", d)
	}
	if _, err := loops.LoopDiff(ctx, r, "a/nosuch", "b"); !errors.Is(err, loops.ErrNoLoop) {
		t.Fatalf("unknown branch: %v", err)
	}
}

func TestSparkline(t *testing.T) {
	if got := loops.Sparkline([]float64{0, 1, 2, 3, 4, 5, 6, 7}, 10); got != "▁▂▃▄▅▆▇█" {
		t.Fatalf("ramp: %q", got)
	}
	if got := loops.Sparkline([]float64{1, math.NaN(), 1}, 10); got != "█ █" {
		t.Fatalf("flat with NaN: %q", got)
	}
	if got := loops.Sparkline([]float64{0, 9, 0, 9}, 2); got != "██" {
		t.Fatalf("buckets keep their highest: %q", got)
	}
}
