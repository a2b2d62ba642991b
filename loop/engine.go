package loop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tinehq/tine/objects"
)

// Sentinel errors of the loop engine.
var (
	// ErrConfig reports a Config that cannot run (no Step, no clock, ...).
	ErrConfig = errors.New("loop: invalid config")
	// ErrPolicy reports a Policy with a negative or NaN bound.
	ErrPolicy = errors.New("loop: invalid policy")
	// ErrNoBest reports a run in which no step produced a score that could
	// become best (every step failed, or scored NaN or -Inf).
	ErrNoBest = errors.New("loop: no step produced a usable score")
	// ErrUnrecordable reports, in Strict mode, a payload that needed
	// sanitizing before it could be recorded.
	ErrUnrecordable = errors.New("loop: payload needs sanitizing (strict)")
	// ErrStateTooDeep reports a state nested deeper than MaxStateDepth.
	ErrStateTooDeep = errors.New("loop: state nested too deep to copy")
	// ErrRecorder wraps an error returned by the Recorder.
	ErrRecorder = errors.New("loop: recorder failed")
)

// RootBranch is the id of the branch every run starts with.
const RootBranch = "root"

var negInf = math.Inf(-1)

// Config is one loop run.
type Config struct {
	// Goal and Context are passed to every step and recorded at Start.
	Goal    string
	Context string
	// Initial is the root branch's state.
	Initial objects.Value
	// Step evaluates a state; required.
	Step Step
	// Policy bounds the run; zero fields take defaults (Policy).
	Policy Policy
	// Recorder receives the run; nil records nothing (and skips the
	// sanitizing and digesting only a Recorder needs).
	Recorder Recorder
	// Now is the clock; required, so tests can pin it.
	Now func() time.Time
	// Algo names the hash used for state digests; "" means BLAKE3.
	Algo objects.Algo
	// Strict makes any sanitizer substitution an ErrUnrecordable error
	// that aborts the run instead of a count.
	Strict bool
}

// Result is the outcome of Run.
type Result struct {
	// Best is the immutable best snapshot; nil when no step became best.
	Best *BestSnapshot
	// Branches is every branch in creation order, root first, as it ended.
	Branches []Branch
	// Gate is why the run stopped (a budget gate, GateExhausted or
	// GateCanceled).
	Gate       Gate
	TotalSteps int
	TotalCost  float64
	Elapsed    time.Duration
	// Sanitized counts substitutions made for the Recorder.
	Sanitized int
	// StepErrors counts Steps that returned an error.
	StepErrors int
}

// BestBranch returns the live branch that holds the best snapshot: the
// README's result.best beside result.best_snapshot.
func (r *Result) BestBranch() (Branch, bool) {
	if r.Best == nil {
		return Branch{}, false
	}
	for _, b := range r.Branches {
		if b.ID == r.Best.BranchID {
			return b, true
		}
	}
	return Branch{}, false
}

// Run executes the loop until no branch is live or a budget runs out. It
// returns the Result even with an error when the run got that far: ErrNoBest
// when nothing scored, the context's error (wrapped) when canceled, a
// recorder or Strict error (wrapped) when recording stopped the run.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	e, err := newEngine(cfg)
	if err != nil {
		return nil, err
	}
	return e.run(ctx)
}

// branch is the engine's mutable view of a branch.
type branch struct {
	Branch
	state objects.Value
	ended bool
}

// engine holds one run's mutable state.
type engine struct {
	cfg    Config
	policy Policy
	start  time.Time
	now    time.Time
	queue  fifo
	all    []*branch
	best   *BestSnapshot
	steps  int
	cost   float64
	forks  int
	// stopReason explains a budget gate to the branches it ends while queued.
	stopReason string
	res        Result
	sanitize   bool
}

func newEngine(cfg Config) (*engine, error) {
	if cfg.Step == nil {
		return nil, fmt.Errorf("%w: no step function", ErrConfig)
	}
	if cfg.Now == nil {
		return nil, fmt.Errorf("%w: no clock (Config.Now)", ErrConfig)
	}
	if cfg.Algo == "" {
		cfg.Algo = objects.BLAKE3
	}
	if !cfg.Algo.Valid() {
		return nil, fmt.Errorf("%w: unknown hash %q", ErrConfig, cfg.Algo)
	}
	p, err := cfg.Policy.withDefaults()
	if err != nil {
		return nil, err
	}
	return &engine{cfg: cfg, policy: p, sanitize: cfg.Recorder != nil}, nil
}

func (e *engine) run(ctx context.Context) (*Result, error) {
	initial, err := cloneValue(e.cfg.Initial)
	if err != nil {
		return nil, fmt.Errorf("initial state: %w", err)
	}
	e.start = e.tick()
	root := &branch{Branch: Branch{ID: RootBranch, Score: negInf}, state: initial}
	e.all = append(e.all, root)
	e.queue.push(root)
	if e.cfg.Recorder != nil {
		snap, n := SnapshotState(e.cfg.Algo, initial)
		if err := e.count("initial state", n); err != nil {
			return nil, err
		}
		rec := StartRecord{Goal: e.cfg.Goal, Context: e.cfg.Context, Policy: e.policy,
			RootBranch: RootBranch, Initial: snap, Time: e.start, Sanitized: n.Total()}
		if err := e.cfg.Recorder.Start(ctx, rec); err != nil {
			return nil, fmt.Errorf("%w: start: %w", ErrRecorder, err)
		}
	}
	gate := GateExhausted
	for e.queue.len() > 0 {
		if ctx.Err() != nil {
			gate = GateCanceled
			break
		}
		g, err := e.iterate(ctx, e.queue.pop())
		if err != nil {
			if ctx.Err() != nil {
				gate = GateCanceled
				break
			}
			return e.result(gate), err
		}
		if g != "" {
			gate = g
			break
		}
	}
	return e.finish(ctx, gate)
}

// finish ends every live branch with the run's gate and hands out the result.
func (e *engine) finish(ctx context.Context, gate Gate) (*Result, error) {
	rctx := ctx
	if gate == GateCanceled {
		// The record of a canceled run is still worth completing.
		rctx = context.WithoutCancel(ctx)
	}
	e.tick()
	reason := e.stopReason
	if reason == "" {
		reason = "run stopped: " + string(gate)
	}
	for e.queue.len() > 0 {
		if err := e.end(rctx, e.queue.pop(), gate, reason, ""); err != nil {
			return e.result(gate), err
		}
	}
	res := e.result(gate)
	if e.cfg.Recorder != nil {
		fin := FinishRecord{Gate: gate, Best: res.Best, Branches: res.Branches, TotalSteps: res.TotalSteps,
			TotalCost: res.TotalCost, Elapsed: res.Elapsed, Sanitized: res.Sanitized, StepErrors: res.StepErrors}
		if err := e.cfg.Recorder.Finish(rctx, fin); err != nil {
			return res, fmt.Errorf("%w: finish: %w", ErrRecorder, err)
		}
	}
	if gate == GateCanceled {
		return res, fmt.Errorf("loop canceled after %d steps: %w", e.steps, ctx.Err())
	}
	if res.Best == nil {
		return res, fmt.Errorf("%w (%d steps, %d step errors)", ErrNoBest, e.steps, e.res.StepErrors)
	}
	return res, nil
}

// result assembles the Result from the engine's current figures.
func (e *engine) result(gate Gate) *Result {
	r := e.res
	r.Gate = gate
	r.Best = e.best
	r.TotalSteps = e.steps
	r.TotalCost = e.cost
	r.Elapsed = elapsedSince(e.now, e.start)
	r.Branches = make([]Branch, len(e.all))
	for i, b := range e.all {
		r.Branches[i] = b.Branch
		r.Branches[i].State = b.state
	}
	return &r
}

// end closes branch b with gate and tells the Recorder.
func (e *engine) end(ctx context.Context, b *branch, gate Gate, reason, errText string) error {
	b.ended = true
	b.Gate = gate
	b.Reason = reason
	if e.cfg.Recorder == nil {
		return nil
	}
	rec := EndRecord{BranchID: b.ID, Gate: gate, Reason: reason, Iteration: b.LastIteration, Steps: b.Steps,
		Score: b.Score, Err: errText, Elapsed: elapsedSince(e.now, e.start), TotalCost: e.cost}
	if err := e.cfg.Recorder.End(ctx, rec); err != nil {
		return fmt.Errorf("%w: end of branch %s: %w", ErrRecorder, b.ID, err)
	}
	return nil
}

// count adds sanitizer substitutions to the run's total, or refuses them in
// Strict mode.
func (e *engine) count(what string, n SanitizeCounts) error {
	if n.Total() == 0 {
		return nil
	}
	if e.cfg.Strict {
		return fmt.Errorf("%w: %s: %s", ErrUnrecordable, what, n)
	}
	e.res.Sanitized += n.Total()
	return nil
}

// newForkID mints the next fork id. The published factory advanced its
// counter twice per fork (once for the recorder's "fork-bN", once for the
// branch's "alt-bN+1"); the ids are kept so the golden traces match.
func (e *engine) newForkID() string {
	e.forks++
	return "alt-b" + strconv.Itoa(2*e.forks)
}

// clampCost counts a step's cost: negative, NaN or infinite costs count as
// zero so one bad figure cannot poison the run's total.
func clampCost(c float64) (float64, bool) {
	if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
		return 0, c != 0
	}
	return c, false
}
