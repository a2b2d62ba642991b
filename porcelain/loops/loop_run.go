package loops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tinehq/tine/loop"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Built-in loop strategies (loopforge.md §2).
const (
	LoopStrategyNumeric = "numeric"
	LoopStrategyText    = "text"
)

// Errors of LoopRun.
var (
	// ErrLoopOptions means loop options that cannot run: no step or two,
	// an unknown strategy, a bad initial state.
	ErrLoopOptions = errors.New("bad loop options")
	// ErrLoopNoBest is loop.ErrNoBest: the loop ran but no step produced a
	// usable score; the result is still returned and recorded.
	ErrLoopNoBest = loop.ErrNoBest
)

// LoopRunOptions configures LoopRun. Exactly one of Strategy, StepCmd and
// Step chooses the step.
type LoopRunOptions struct {
	// Name is the loop: its branches are recorded at experiments/Name/.
	Name string
	// Base is a revision naming the run the loop continues (tine loop run
	// defaults it to the current run); "" for a loop of its own.
	Base string
	// Goal and Context are passed to every step; an empty Goal gets the
	// strategy's default ("Find x near 42.0", "Rewrite toward: ...").
	Goal, Context string
	// Strategy is "numeric" or "text".
	Strategy string
	// Numeric: Target (default 42), StepSize (default 3.5), Tol (default
	// 0.01); nil takes the default.
	Target, StepSize, Tol *float64
	// Text: GoodWord (default "clear" when nil) and MaxLen (0 means 40).
	GoodWord *string
	MaxLen   int
	// StepCmd is a shell command line run with sh -c once per step,
	// speaking the tine-step/1 protocol on stdin and stdout.
	StepCmd string
	// StepTimeout bounds one step command; 0 means 60 s.
	StepTimeout time.Duration
	// Dir and Env are the step command's working directory and added
	// environment ("KEY=value").
	Dir string
	Env []string
	// NoCapture skips recording the code state of Dir (runs.CaptureWorkspace)
	// as every branch run's "code" manifest.
	NoCapture bool
	// StepHTTP is an OpenAI-compatible API's base URL asked once per step
	// (loop.HTTPStep) with Model, the key read from the environment
	// variable KeyEnv (default OPENAI_API_KEY); StepTimeout bounds a call.
	StepHTTP, Model, KeyEnv string
	// Step is a Go step for library callers.
	Step loop.Step
	// Start is the initial state's seed: x for numeric (default 0), the
	// text for text. State, a JSON document, overrides it and is the
	// initial state of a step command (default {}).
	Start string
	State []byte
	// The policy (loop.Policy): zero means the engine default or no limit.
	Width, MaxBranches, MaxSteps int
	MaxCost                      float64
	MaxDuration                  time.Duration
	MinScore, TargetScore        *float64
	// Strict refuses any payload that needs sanitizing.
	Strict bool
	// CheckpointEvery is LoopRecorderOptions.CheckpointEvery.
	CheckpointEvery int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflogs.
	Actor string
}

// LoopScore is a score that may be NaN or infinite: JSON writes those as
// the strings "NaN", "Infinity" and "-Infinity".
type LoopScore float64

// MarshalJSON implements json.Marshaler.
func (s LoopScore) MarshalJSON() ([]byte, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return json.Marshal(numValue(f).Str)
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// LoopBest is the loop's best step.
type LoopBest struct {
	Branch      string          `json:"branch"`
	Iteration   int             `json:"iteration"`
	BranchStep  int             `json:"branch_step"`
	Score       LoopScore       `json:"score"`
	State       json.RawMessage `json:"state"`
	Digest      string          `json:"state_digest"`
	Observation string          `json:"observation"`
}

// LoopBranchResult is how one branch ended.
type LoopBranchResult struct {
	ID     string    `json:"id"`
	Parent string    `json:"parent,omitempty"`
	Ref    string    `json:"ref"`
	Gate   string    `json:"gate"`
	Reason string    `json:"reason"`
	Steps  int       `json:"steps"`
	Score  LoopScore `json:"score"`
	Cost   float64   `json:"cost"`
}

// LoopRunResult is what `tine loop run` reports.
type LoopRunResult struct {
	Loop       string             `json:"loop"`
	Goal       string             `json:"goal"`
	Gate       string             `json:"gate"`
	TotalSteps int                `json:"total_steps"`
	TotalCost  float64            `json:"total_cost"`
	Elapsed    float64            `json:"elapsed_seconds"`
	Sanitized  int                `json:"sanitized"`
	StepErrors int                `json:"step_errors"`
	Best       *LoopBest          `json:"best,omitempty"`
	BestRef    string             `json:"best_ref,omitempty"`
	Branches   []LoopBranchResult `json:"branches"`
	// Workspace is the code state the loop ran in (every branch run's
	// "code" manifest); WorkspaceSkipped says why none was captured.
	Workspace        *runs.Workspace `json:"workspace,omitempty"`
	WorkspaceSkipped string          `json:"workspace_skipped,omitempty"`
	Written          LoopWriteStats  `json:"written"`
}

// LoopRun runs a loop and records it (LoopRecorder). It returns the result
// together with an error when the loop got that far: loop.ErrNoBest when no
// step scored, a canceled context, a strict refusal (loop.ErrUnrecordable).
func LoopRun(ctx context.Context, r *plumbing.Repo, opt LoopRunOptions) (*LoopRunResult, error) {
	cfg, err := loopConfig(opt)
	if err != nil {
		return nil, err
	}
	now := runs.Clock(opt.Now)
	cfg.Now, cfg.Algo = now, r.Algo()
	var base *runs.Run
	if opt.Base != "" {
		if base, _, err = runs.ResolveRun(ctx, r, opt.Base); err != nil {
			return nil, fmt.Errorf("loop %s: base run: %w", opt.Name, err)
		}
	}
	ws := &runs.WorkspaceCapture{Skipped: "turned off"}
	if !opt.NoCapture {
		env := append(os.Environ(), opt.Env...)
		ws = runs.CaptureWorkspace(ctx, r.Algo(), opt.Dir, runs.WorkspaceOptions{Env: env, Redactor: objects.NewEnvRedactor(env)})
	}
	rec, err := NewLoopRecorder(ctx, r, LoopRecorderOptions{Name: opt.Name, CheckpointEvery: opt.CheckpointEvery, Now: now, Actor: opt.Actor, Base: base, Code: ws.Blob})
	if err != nil {
		return nil, err
	}
	cfg.Recorder = rec
	res, runErr := loop.Run(ctx, cfg)
	if cerr := rec.Close(context.WithoutCancel(ctx)); cerr != nil && runErr == nil {
		runErr = cerr
	}
	if res == nil {
		return nil, runErr
	}
	out := loopRunResult(opt.Name, cfg.Goal, rec, res)
	out.Workspace, out.WorkspaceSkipped = ws.Summary, ws.Skipped
	return out, runErr
}

// loopRunResult converts the engine's result.
func loopRunResult(name, goal string, rec *LoopRecorder, res *loop.Result) *LoopRunResult {
	out := &LoopRunResult{Loop: name, Goal: goal, Gate: string(res.Gate), TotalSteps: res.TotalSteps,
		TotalCost: res.TotalCost, Elapsed: res.Elapsed.Seconds(), Sanitized: res.Sanitized,
		StepErrors: res.StepErrors, Branches: []LoopBranchResult{}, Written: rec.Stats()}
	if b := res.Best; b != nil {
		state, _ := objects.CanonV3(b.State)
		out.Best = &LoopBest{Branch: b.BranchID, Iteration: b.Iteration, BranchStep: b.BranchStep,
			Score: LoopScore(b.Score), State: state, Digest: b.Digest.String(), Observation: b.Observation}
		out.BestRef = rec.Ref(LoopBestBranch)
	}
	for _, b := range res.Branches {
		out.Branches = append(out.Branches, LoopBranchResult{ID: b.ID, Parent: b.Parent, Ref: rec.Ref(b.ID),
			Gate: string(b.Gate), Reason: b.Reason, Steps: b.Steps, Score: LoopScore(b.Score), Cost: b.Cost})
	}
	return out
}

// loopConfig builds the engine's configuration from the options.
func loopConfig(opt LoopRunOptions) (loop.Config, error) {
	cfg := loop.Config{Goal: opt.Goal, Context: opt.Context, Strict: opt.Strict,
		Policy: loop.Policy{MaxSteps: opt.MaxSteps, MaxCost: opt.MaxCost, MaxDuration: opt.MaxDuration,
			MinScore: opt.MinScore, Target: opt.TargetScore, Width: opt.Width, MaxBranches: opt.MaxBranches}}
	chosen := 0
	for _, set := range []bool{opt.Strategy != "", opt.StepCmd != "", opt.StepHTTP != "", opt.Step != nil} {
		if set {
			chosen++
		}
	}
	if chosen != 1 {
		return cfg, fmt.Errorf("%w: choose exactly one of a strategy (numeric, text), a step command and an HTTP step", ErrLoopOptions)
	}
	var err error
	switch {
	case opt.Step != nil:
		cfg.Step = opt.Step
		cfg.Initial, err = initialJSON(opt.State)
	case opt.StepCmd != "":
		cfg.Step, err = loop.CommandStep(loop.StepCmd{Argv: []string{"sh", "-c", opt.StepCmd}, Dir: opt.Dir, Env: opt.Env, Timeout: opt.StepTimeout})
		if err == nil {
			cfg.Initial, err = initialJSON(opt.State)
		}
	case opt.StepHTTP != "":
		cfg.Step, err = loop.HTTPStep(loop.StepHTTP{URL: opt.StepHTTP, Model: opt.Model, KeyEnv: opt.KeyEnv, Timeout: opt.StepTimeout})
		if err == nil {
			cfg.Initial, err = initialJSON(opt.State)
		}
	case opt.Strategy == LoopStrategyNumeric:
		err = numericConfig(&cfg, opt)
	case opt.Strategy == LoopStrategyText:
		err = textConfig(&cfg, opt)
	default:
		return cfg, fmt.Errorf("%w: unknown strategy %q (numeric or text)", ErrLoopOptions, opt.Strategy)
	}
	return cfg, err
}

// initialJSON parses an initial state document; empty means {}.
func initialJSON(b []byte) (objects.Value, error) {
	if len(b) == 0 {
		return objects.ObjectValue(), nil
	}
	v, err := runs.ParseStrict(b, runs.MaxEventFileBytes)
	if err != nil {
		return objects.Value{}, fmt.Errorf("%w: initial state: %w", ErrLoopOptions, err)
	}
	return v, nil
}

// orFloat returns *p, or def when p is nil.
func orFloat(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

// numericConfig sets up numeric_refinement (loopforge.md §2.1, CLI
// run-numeric: goal "Find x near T", initial {"x": start}).
func numericConfig(cfg *loop.Config, opt LoopRunOptions) error {
	target, step, tol := orFloat(opt.Target, 42), orFloat(opt.StepSize, 3.5), orFloat(opt.Tol, 0.01)
	for _, f := range []float64{target, step, tol} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: numeric parameters must be finite", ErrLoopOptions)
		}
	}
	cfg.Step = loop.Numeric(target, step, tol)
	if cfg.Goal == "" {
		cfg.Goal = "Find x near " + pyFloat(target)
	}
	if len(opt.State) > 0 {
		v, err := initialJSON(opt.State)
		cfg.Initial = v
		return err
	}
	x := 0.0
	if opt.Start != "" {
		f, err := strconv.ParseFloat(opt.Start, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: --start %q is not a finite number", ErrLoopOptions, opt.Start)
		}
		x = f
	}
	cfg.Initial = objects.ObjectValue(m("x", objects.Float(x)))
	return nil
}

// textConfig sets up text_rewrite (loopforge.md §2.2, CLI run-text).
func textConfig(cfg *loop.Config, opt LoopRunOptions) error {
	good := "clear"
	if opt.GoodWord != nil {
		good = *opt.GoodWord
	}
	maxLen := opt.MaxLen
	if maxLen < 0 {
		return fmt.Errorf("%w: --max-len %d is negative", ErrLoopOptions, maxLen)
	}
	if maxLen == 0 {
		maxLen = 40
	}
	cfg.Step = loop.Text(opt.Goal, good, maxLen)
	if opt.Goal != "" {
		cfg.Goal = "Rewrite toward: " + opt.Goal
	}
	if len(opt.State) > 0 {
		v, err := initialJSON(opt.State)
		cfg.Initial = v
		return err
	}
	cfg.Initial = objects.ObjectValue(m("text", objects.String(opt.Start)))
	return nil
}

// pyFloat renders f as Python's str(float) does for the goal text
// ("42.0", "1e-05", "1e+16"): positional between 1e-4 and 1e16.
func pyFloat(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
