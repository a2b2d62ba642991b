package loops_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tinehq/tine/loop"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/loops"
)

// loopClock is a deterministic clock for loops: one millisecond per read.
func loopClock() func() time.Time {
	return fakeClock(time.Unix(1_700_000_000, 0), time.Millisecond)
}

// f64 returns a pointer to f.
func f64(f float64) *float64 { return &f }

// requireFsck fails the test unless fsck finds no problem.
func requireFsck(t *testing.T, r *plumbing.Repo) *plumbing.FsckResult {
	t.Helper()
	res, err := plumbing.Fsck(context.Background(), r, plumbing.FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("fsck problems: %+v", res.Problems)
	}
	return res
}

// numericT1 is golden trace T1 (loopforge.md §2.3): the README example with
// the CLI's max-steps 20.
func numericT1(name string) loops.LoopRunOptions {
	return loops.LoopRunOptions{Name: name, Strategy: loops.LoopStrategyNumeric, Target: f64(42),
		Width: 2, MaxBranches: 4, MaxSteps: 20, Now: loopClock()}
}

func TestLoopRunNumericT1(t *testing.T) {
	r := newRepo(t)
	res, err := loops.LoopRun(context.Background(), r, numericT1("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || res.Best.Branch != "alt-b12" || float64(res.Best.Score) != -0.005126953125 {
		t.Fatalf("best = %+v, want alt-b12 at -0.005126953125", res.Best)
	}
	if res.Gate != string(loop.GateMaxSteps) || res.TotalSteps != 20 || len(res.Branches) != 18 {
		t.Fatalf("gate %s, %d steps, %d branches; want max-steps, 20, 18", res.Gate, res.TotalSteps, len(res.Branches))
	}
	requireFsck(t, r)
	best := loadRef(t, r, "experiments/t1/best")
	b12 := loadRef(t, r, "experiments/t1/alt-b12")
	if best.ID != b12.ID {
		t.Fatalf("best ref %s, alt-b12 %s: want the same run", best.ID, b12.ID)
	}
	root := loadRef(t, r, "experiments/t1/root")
	if b12.Events[0].ID != root.Events[0].ID || b12.ForkedFrom == nil {
		t.Fatalf("fork does not share the root event or has no forked_from")
	}
	if res.Written.Checkpoints != 1 {
		t.Fatalf("%d checkpoints for 20 iterations, want 1 (every 64)", res.Written.Checkpoints)
	}
}

// With CheckpointEvery 1 every iteration moves the refs: the root's
// reflog has a row per checkpoint that changed it, and fsck stays clean.
func TestLoopCheckpointEveryIteration(t *testing.T) {
	r := newRepo(t)
	opt := numericT1("c")
	opt.CheckpointEvery = 1
	res, err := loops.LoopRun(context.Background(), r, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Written.Checkpoints < 20 {
		t.Fatalf("%d checkpoints, want one per iteration at least", res.Written.Checkpoints)
	}
	log, err := r.Refs().Reflog("experiments/c/root")
	if err != nil || len(log) < 4 {
		t.Fatalf("root reflog: %d rows (%v), want one per root step at least", len(log), err)
	}
	requireFsck(t, r)
}

// endlessStep never stops: the root forks a sibling at each of its first
// 15 steps (so the loop has 16 branches), then every branch proposes one
// next state forever.
func endlessStep(_ context.Context, in loop.StepInput) (loop.StepResult, error) {
	n, _ := in.State.Get("n")
	v := float64(n.Int)
	next := func(d int64) objects.Value {
		return objects.ObjectValue(objects.Member{Key: "n", Value: objects.Int(n.Int + d)})
	}
	props := []loop.Proposal{loop.Propose(next(1), (v+1)/1000)}
	if in.BranchID == loop.RootBranch && in.BranchStep <= 15 {
		props = append(props, loop.Propose(next(2), (v+0.5)/1000))
	}
	return loop.StepResult{Observation: fmt.Sprintf("n=%d", n.Int), Score: v / 1000, Cost: 0.001, Proposals: props}, nil
}

// TestLoopScale: 1,000 iterations over 16 branches all land, with fsck
// clean. How fast they land is BenchmarkLoopRun1000's business, not a
// test's: a wall-clock bound fails on a loaded machine, not on slow code.
func TestLoopScale(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s of disk writes")
	}
	r := newRepo(t)
	res, err := loops.LoopRun(context.Background(), r, loops.LoopRunOptions{Name: "big", Step: endlessStep,
		State: []byte(`{"n":0}`), MaxSteps: 1000, MaxBranches: 16, Width: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalSteps != 1000 || len(res.Branches) != 16 || res.Gate != string(loop.GateMaxSteps) {
		t.Fatalf("%d steps, %d branches, gate %s", res.TotalSteps, len(res.Branches), res.Gate)
	}
	fs := requireFsck(t, r)
	t.Logf("1000 iterations, %d branches; written %+v; fsck %d objects", len(res.Branches), res.Written, fs.Objects)
}
