package loop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// scripted answers each branch's steps from a table keyed "branch/step".
type scripted map[string]StepResult

func (s scripted) step(_ context.Context, in StepInput) (StepResult, error) {
	r, ok := s[fmt.Sprintf("%s/%d", in.BranchID, in.BranchStep)]
	if !ok {
		return StepResult{Score: -1, Stop: true}, nil
	}
	return r, nil
}

func st(n int) objects.Value { return obj("n", n) }

func TestMaxCostCountsEveryStepOnce(t *testing.T) {
	// Two branches, each step costs 0.3: 0.3, 0.6, 0.9 < 1.0, the 4th
	// step reaches 1.2 and gates, whichever branch takes it.
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		props := []Proposal{Propose(st(1), 1)}
		if in.Iteration == 1 {
			props = append(props, Propose(st(2), 0.5))
		}
		return StepResult{Score: 0, Cost: 0.3, Proposals: props}, nil
	}
	res, tr := runTraced(t, Config{Initial: st(0), Step: step, Policy: Policy{MaxCost: 1.0, Width: 2}})
	if res.Gate != GateMaxCost || res.TotalSteps != 4 || math.Abs(res.TotalCost-1.2) > 1e-9 {
		t.Fatalf("gate %s steps %d cost %v", res.Gate, res.TotalSteps, res.TotalCost)
	}
	var sum float64
	for _, b := range res.Branches {
		sum += b.Cost
	}
	if math.Abs(sum-res.TotalCost) > 1e-9 {
		t.Errorf("branch costs sum to %v, total %v: a fork inherited spend", sum, res.TotalCost)
	}
	// Both branches end with the gate: the one that crossed and the queued one.
	if len(tr.ends) != 2 || tr.ends[0].Gate != GateMaxCost || tr.ends[1].Gate != GateMaxCost {
		t.Errorf("ends %+v", tr.ends)
	}
}

func TestMaxStepsIsGlobal(t *testing.T) {
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		return StepResult{Score: float64(in.Iteration), Proposals: []Proposal{Propose(st(1), 0), Propose(st(2), 0)}}, nil
	}
	res, _ := runTraced(t, Config{Initial: st(0), Step: step, Policy: Policy{MaxSteps: 7, Width: 2, MaxBranches: 16}})
	if res.TotalSteps != 7 || res.Gate != GateMaxSteps {
		t.Fatalf("steps %d gate %s", res.TotalSteps, res.Gate)
	}
	steps := 0
	for _, b := range res.Branches {
		steps += b.Steps
		if b.Gate == "" {
			t.Errorf("branch %s never ended", b.ID)
		}
	}
	if steps != 7 {
		t.Errorf("branch steps sum %d", steps)
	}
}

func TestMaxDurationFakeClock(t *testing.T) {
	// Each clock reading advances 1s; the step itself is two readings apart.
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		return StepResult{Score: 1, Proposals: []Proposal{Propose(st(in.Iteration), 1)}}, nil
	}
	res, tr := runTraced(t, Config{Initial: st(0), Step: step, Now: fixedClock(time.Second),
		Policy: Policy{MaxDuration: 5 * time.Second}})
	// start=1s; step k reads 2k and 2k+1 seconds after base; elapsed after
	// step k is 2k seconds, so step 3 (6s >= 5s) gates.
	if res.Gate != GateMaxDuration || res.TotalSteps != 3 {
		t.Fatalf("gate %s after %d steps", res.Gate, res.TotalSteps)
	}
	if !strings.Contains(tr.ends[0].Reason, "max-duration 5s") {
		t.Errorf("reason %q", tr.ends[0].Reason)
	}
}

func TestMinScoreEndsOnlyThatBranch(t *testing.T) {
	s := scripted{
		"root/1":   {Score: 0.1, Proposals: []Proposal{Propose(st(1), 0.2), Propose(st(2), 0.1)}},
		"root/2":   {Score: 0.95, Proposals: []Proposal{Propose(st(3), 1)}},
		"alt-b2/1": {Score: 0.5, Proposals: nil},
	}
	res, tr := runTraced(t, Config{Initial: st(0), Step: s.step, Policy: Policy{MinScore: f64(0.9), Width: 2}})
	got := map[string]Gate{}
	for _, e := range tr.ends {
		got[e.BranchID] = e.Gate
	}
	if got["root"] != GateMinScore || got["alt-b2"] != GateNoNextState || res.Gate != GateExhausted {
		t.Errorf("ends %v, run %s", got, res.Gate)
	}
}

func TestStopOrder(t *testing.T) {
	// One step that is at once over budget, above min-score, stopping, on
	// target and proposing nothing: the budget gate wins, and so on down.
	cases := []struct {
		p    Policy
		r    StepResult
		want Gate
	}{
		{Policy{MaxSteps: 1, MinScore: f64(0), Target: f64(0)}, StepResult{Score: 1, Stop: true}, GateMaxSteps},
		{Policy{MinScore: f64(0), Target: f64(0)}, StepResult{Score: 1, Stop: true}, GateMinScore},
		{Policy{Target: f64(0)}, StepResult{Score: 1, Stop: true}, GateStop},
		{Policy{Target: f64(0)}, StepResult{Score: 1}, GateTarget},
		{Policy{}, StepResult{Score: 1}, GateNoNextState},
		// Only stateless proposals: nothing to adopt.
		{Policy{}, StepResult{Score: 1, Proposals: []Proposal{{}, {}}}, GateNoNextState},
	}
	for _, c := range cases {
		r := c.r
		step := func(context.Context, StepInput) (StepResult, error) { return r, nil }
		_, tr := runTraced(t, Config{Initial: st(0), Step: step, Policy: c.p})
		if tr.ends[0].Gate != c.want {
			t.Errorf("%+v: ended %s, want %s", c.p, tr.ends[0].Gate, c.want)
		}
	}
}

func TestFanOutWidthFIFOAndTies(t *testing.T) {
	// Width 3 of 4 proposals; the stateless one ranked 2nd uses a slot.
	s := scripted{"root/1": {Score: 0, Proposals: []Proposal{
		Propose(st(1), 0.5), {Score: f64(0.7)}, Propose(st(3), 0.5), Propose(st(4), 0.9), ProposeUnscored(st(5)),
	}}}
	var order []string
	step := func(ctx context.Context, in StepInput) (StepResult, error) {
		order = append(order, in.BranchID)
		return s.step(ctx, in)
	}
	_, tr := runTraced(t, Config{Initial: st(0), Step: step, Policy: Policy{Width: 3}})
	r := tr.iters[0]
	want := []struct {
		rank int
		out  Outcome
		id   string
	}{{2, OutcomeFork, "alt-b2"}, {1, OutcomeNoState, ""}, {3, OutcomeBeyondWidth, ""}, {0, OutcomeContinue, "root"}, {4, OutcomeBeyondWidth, ""}}
	for i, w := range want {
		c := r.Candidates[i]
		if c.Rank != w.rank || c.Outcome != w.out || c.BranchID != w.id {
			t.Errorf("candidate %d = rank %d %s %q, want %+v", i, c.Rank, c.Outcome, c.BranchID, w)
		}
	}
	if !r.Candidates[4].Inherited || r.Candidates[4].Score != 0 {
		t.Errorf("unscored proposal did not inherit the step score: %+v", r.Candidates[4])
	}
	// FIFO: the continuing root goes behind... nothing, then alt-b2.
	if !slices.Equal(order, []string{"root", "root", "alt-b2"}) {
		t.Errorf("order %v", order)
	}
}

func TestPruneKeepsBestStable(t *testing.T) {
	// Root forks 3 equal-scored branches each step; max 2 live. Ties keep
	// queue order, so the continuing root (queued first) survives.
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		if in.BranchID != RootBranch {
			return StepResult{Score: 0}, nil
		}
		return StepResult{Score: 0, Proposals: []Proposal{Propose(st(1), 0), Propose(st(2), 0), Propose(st(3), 0)}}, nil
	}
	res, tr := runTraced(t, Config{Initial: st(0), Step: step, Policy: Policy{Width: 3, MaxBranches: 2, MaxSteps: 2}})
	var pruned []string
	for _, e := range tr.ends {
		if e.Gate == GatePruned {
			pruned = append(pruned, e.BranchID)
		}
	}
	if !slices.Equal(pruned, []string{"alt-b4"}) || res.Branches[1].ID != "alt-b2" {
		t.Errorf("pruned %v", pruned)
	}
}

func TestBestSnapshotImmutableAndTies(t *testing.T) {
	s := scripted{
		"root/1":   {Score: 1, Proposals: []Proposal{Propose(st(1), 1), Propose(st(2), 1)}},
		"root/2":   {Score: 3, Proposals: []Proposal{Propose(st(3), 1)}},
		"alt-b2/1": {Score: 3, Stop: true}, // ties never replace the incumbent
		"root/3":   {Score: 2, Stop: true}, // getting worse keeps the snapshot
	}
	res, _ := runTraced(t, Config{Initial: st(0), Step: s.step, Policy: Policy{Width: 2}})
	b := res.Best
	if b.BranchID != "root" || b.Iteration != 2 || b.Score != 3 || canon(b.State) != `{"n":1}` || b.Digest.String() == "" {
		t.Fatalf("best %+v", b)
	}
	live, ok := res.BestBranch()
	if !ok || canon(live.State) != `{"n":3}` || live.Score != 2 {
		t.Errorf("live best %s %v", canon(live.State), live.Score)
	}
	// NaN and -Inf never become best.
	for _, bad := range []float64{math.NaN(), math.Inf(-1)} {
		step := func(context.Context, StepInput) (StepResult, error) { return StepResult{Score: bad}, nil }
		res, err := Run(context.Background(), Config{Initial: st(0), Step: step, Now: fixedClock(0)})
		if !errors.Is(err, ErrNoBest) || res == nil || res.Best != nil {
			t.Errorf("score %v: err %v", bad, err)
		}
	}
}

func TestStepMutatingItsInputCannotReachTheBranch(t *testing.T) {
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		in.State.Object[0].Value = objects.Int(99)
		return StepResult{Score: 1, Stop: true}, nil
	}
	res, tr := runTraced(t, Config{Initial: st(7), Step: step})
	if canon(res.Best.State) != `{"n":7}` || string(tr.iters[0].State.Stored) != `{"n":7}` {
		t.Errorf("state leaked: %s / %s", canon(res.Best.State), tr.iters[0].State.Stored)
	}
}

func TestStepErrorEndsBranchOnly(t *testing.T) {
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		if in.BranchID == "alt-b2" {
			return StepResult{}, errors.New("boom")
		}
		if in.Iteration == 1 {
			return StepResult{Score: 1, Proposals: []Proposal{Propose(st(1), 1), Propose(st(2), 0)}}, nil
		}
		return StepResult{Score: 2, Stop: true}, nil
	}
	res, tr := runTraced(t, Config{Initial: st(0), Step: step, Policy: Policy{Width: 2}})
	if res.StepErrors != 1 || res.TotalSteps != 2 || res.Best.Score != 2 {
		t.Errorf("errors %d steps %d best %v", res.StepErrors, res.TotalSteps, res.Best.Score)
	}
	if e := tr.ends[1]; e.BranchID != "alt-b2" || e.Gate != GateError || e.Err != "boom" {
		t.Errorf("end %+v", e)
	}
}

func TestConfigAndPolicyErrors(t *testing.T) {
	ok := func(context.Context, StepInput) (StepResult, error) { return StepResult{}, nil }
	for _, cfg := range []Config{
		{Now: time.Now},
		{Step: ok},
		{Step: ok, Now: time.Now, Algo: "md5"},
		{Step: ok, Now: time.Now, Policy: Policy{MaxSteps: -1}},
		{Step: ok, Now: time.Now, Policy: Policy{MaxCost: math.NaN()}},
		{Step: ok, Now: time.Now, Policy: Policy{MinScore: f64(math.NaN())}},
	} {
		if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrConfig) && !errors.Is(err, ErrPolicy) {
			t.Errorf("%+v: err %v", cfg.Policy, err)
		}
	}
}

type failingRecorder struct{ traceRecorder }

func (f *failingRecorder) Fork(context.Context, ForkRecord) error { return errors.New("disk full") }

func TestRecorderErrorAbortsRun(t *testing.T) {
	rec := &failingRecorder{}
	_, err := Run(context.Background(), Config{Initial: obj("x", 0.0), Step: Numeric(10, 2.5, 0.01),
		Recorder: rec, Now: fixedClock(0), Policy: Policy{Width: 2}})
	if !errors.Is(err, ErrRecorder) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err %v", err)
	}
	if rec.fin != nil {
		t.Errorf("Finish called after a recorder failure")
	}
}

func TestCancelEndsLiveBranchesAndFinishes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		if in.Iteration == 3 {
			cancel()
		}
		return StepResult{Score: 1, Proposals: []Proposal{Propose(st(1), 1)}}, nil
	}
	tr := &traceRecorder{}
	res, err := Run(ctx, Config{Initial: st(0), Step: step, Recorder: tr, Now: fixedClock(0)})
	if !errors.Is(err, context.Canceled) || res.Gate != GateCanceled || res.TotalSteps != 3 {
		t.Fatalf("err %v gate %v steps %d", err, res.Gate, res.TotalSteps)
	}
	if tr.fin == nil || tr.fin.Gate != GateCanceled || tr.ends[len(tr.ends)-1].Gate != GateCanceled {
		t.Errorf("canceled run not finished: %+v", tr.fin)
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := runTraced(t, goldenCases()[0].cfg)
	_, tr1 := runTraced(t, goldenCases()[2].cfg)
	_, tr2 := runTraced(t, goldenCases()[2].cfg)
	if tr1.b.String() != tr2.b.String() || a.Best == nil {
		t.Errorf("two runs of the same loop differ")
	}
}

// thousandIterations runs issue 7's scale: 1,000 iterations, width 3, at
// most 16 branches running at once, engine alone.
func thousandIterations(rec Recorder) (*Result, error) {
	step := func(_ context.Context, in StepInput) (StepResult, error) {
		x, _ := in.State.Get("n")
		n := x.Int
		return StepResult{Score: float64(n % 97), Proposals: []Proposal{
			Propose(st(int(n+1)), float64((n+1)%89)), Propose(st(int(n+2)), float64((n+2)%89)),
			Propose(st(int(n+3)), float64((n+3)%89)),
		}}, nil
	}
	return Run(context.Background(), Config{Initial: st(0), Step: step, Now: time.Now, Recorder: rec,
		Policy: Policy{MaxSteps: 1000, Width: 3, MaxBranches: 16}})
}

// TestThousandIterationsSixteenBranches checks the engine completes issue
// 7's scale with and without a recorder; BenchmarkThousandIterations
// measures how long it takes.
func TestThousandIterationsSixteenBranches(t *testing.T) {
	for _, rec := range []Recorder{nil, &discardRecorder{}} {
		res, err := thousandIterations(rec)
		if err != nil || res.TotalSteps != 1000 {
			t.Fatalf("err %v steps %d", err, res.TotalSteps)
		}
	}
}

// BenchmarkThousandIterations times one 1,000-iteration loop.
func BenchmarkThousandIterations(b *testing.B) {
	for b.Loop() {
		if _, err := thousandIterations(&discardRecorder{}); err != nil {
			b.Fatal(err)
		}
	}
}

type discardRecorder struct{}

func (discardRecorder) Start(context.Context, StartRecord) error         { return nil }
func (discardRecorder) Iteration(context.Context, IterationRecord) error { return nil }
func (discardRecorder) Fork(context.Context, ForkRecord) error           { return nil }
func (discardRecorder) End(context.Context, EndRecord) error             { return nil }
func (discardRecorder) Finish(context.Context, FinishRecord) error       { return nil }

func BenchmarkEngine1000x16(b *testing.B) {
	for b.Loop() {
		_, err := Run(context.Background(), Config{Initial: obj("x", 0.0), Step: Numeric(1e6, 3.5, 0.01),
			Now: time.Now, Policy: Policy{MaxSteps: 1000, Width: 3, MaxBranches: 16}})
		if err != nil {
			b.Fatal(err)
		}
	}
}
