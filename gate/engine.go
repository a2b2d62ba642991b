package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Engine evaluates constraints. It holds the injected clock and sleeper;
// it persists nothing (ARCHITECTURE §3: gate decides, porcelain stores).
type Engine struct {
	// Now is the clock for Started, durations and retry budgets.
	Now func() time.Time
	// Sleep waits between retry attempts; it returns early with ctx's
	// error when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewEngine returns an Engine on the given clock, sleeping on real timers.
func NewEngine(now func() time.Time) *Engine {
	return &Engine{Now: now, Sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ExecEnv is what executing a constraint needs from the caller.
type ExecEnv struct {
	// Root is the absolute project root; every path is confined to it.
	Root string
	// Contract is the loaded contract the constraint belongs to.
	Contract *Contract
	// Env is the child process environment; nil means os.Environ(). Its
	// secret-named values are also redacted from every output.
	Env []string
	// InputDigest is the constraint's current input digest, copied into
	// the evidence (see ComputeInputDigest).
	InputDigest string
	// Prior holds results already produced in this gate run; rubric
	// bundles carry them as deterministic_results.
	Prior []*Evidence
	// Goal is the user's goal for rubric bundles ("" for none).
	Goal string
	// Diff is the working-copy diff for rubric bundles, already limited to
	// disclosable paths; gate redacts and truncates it.
	Diff string
	// Changed lists changed project-relative paths, which rubric bundles
	// send first.
	Changed []string
}

// Execute evaluates one constraint and returns its evidence. Everything
// that can go wrong with the constraint itself (a bad cwd, a timeout, a
// malformed metric, a lying evaluator) is a verdict in the evidence, never
// an error; the error is for misuse (a nil constraint, a relative root).
// Execute does not look at needs: callers use DependencyResult first.
func (e *Engine) Execute(ctx context.Context, c *Constraint, env ExecEnv) (*Evidence, error) {
	if c == nil || env.Contract == nil {
		return nil, errors.New("gate: Execute needs a constraint and its contract")
	}
	if !filepath.IsAbs(env.Root) {
		return nil, fmt.Errorf("gate: constraint %s: project root %q is not absolute", c.ID, env.Root)
	}
	if env.Env == nil {
		env.Env = os.Environ()
	}
	start := e.Now()
	ev := &Evidence{ConstraintID: c.ID, Kind: c.Kind, Enforcement: c.Enforcement,
		InputDigest: env.InputDigest, Started: start.UTC()}
	red := newRedactor(env.Env)
	limit := env.Contract.Settings.EvidenceOutputLimit
	switch c.Kind {
	case KindCommand:
		e.execCommand(ctx, c, env, red, limit, ev)
	case KindMetric, KindRatchet:
		e.runMeasure(ctx, c, env, red, limit, ev)
	case KindArtifact:
		runArtifact(c, env, ev)
	case KindRubric:
		e.runRubric(ctx, c, env, red, limit, ev)
	default:
		setResult(ev, Error, CategoryEnvironment, fmt.Sprintf("Unknown constraint kind %q", c.Kind))
	}
	ev.Message = red.text(ev.Message)
	ev.Duration = e.Now().Sub(start)
	return ev, nil
}

func setResult(ev *Evidence, v Verdict, cat Category, msg string) {
	ev.Verdict, ev.Category, ev.Message = v, cat, msg
}
