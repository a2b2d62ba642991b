package loop

import (
	"fmt"
	"math"
	"time"
)

// The published engine's defaults (loopforge.md §1.2), applied to zero
// fields by Policy.withDefaults.
const (
	DefaultMaxSteps    = 40
	DefaultWidth       = 3
	DefaultMaxBranches = 6
)

// Policy bounds a run (loopforge.md §4 LoopPolicy plus the engine's width,
// branch and target settings). Zero numeric fields take the defaults above
// or mean "no limit"; nil MinScore and Target mean "none".
type Policy struct {
	// MaxSteps is the run-wide step budget: every executed step of every
	// branch counts once. 0 means DefaultMaxSteps.
	MaxSteps int
	// MaxCost is the run-wide spend ceiling, every step's cost counted
	// once; 0 means no limit.
	MaxCost float64
	// MaxDuration is the run-wide wall-clock budget on the injected
	// clock; 0 means no limit.
	MaxDuration time.Duration
	// MinScore ends a branch whose step scores at least this much.
	MinScore *float64
	// Target ends a branch whose step scores at least this much (the
	// published engine's target_score).
	Target *float64
	// Width is how many proposals a step may turn into branches: the best
	// continues, up to Width-1 more fork. 0 means DefaultWidth.
	Width int
	// MaxBranches caps the live branches; the lowest scored beyond it are
	// pruned after a fan-out. 0 means DefaultMaxBranches.
	MaxBranches int
}

// Gate names why a branch or a run ended; the recorder tags runs with it.
type Gate string

// The gates, in the order a step is checked (budget first).
const (
	GateMaxSteps    Gate = "max-steps"
	GateMaxCost     Gate = "max-cost"
	GateMaxDuration Gate = "max-duration"
	GateMinScore    Gate = "min-score"
	GateStop        Gate = "stop"
	GateTarget      Gate = "target"
	GateNoNextState Gate = "no-next-state"
	// GatePruned ends a branch dropped because MaxBranches was exceeded.
	GatePruned Gate = "pruned"
	// GateError ends a branch whose Step failed.
	GateError Gate = "error"
	// GateCanceled ends a run whose context was canceled.
	GateCanceled Gate = "canceled"
	// GateExhausted ends a run that ran out of live branches.
	GateExhausted Gate = "exhausted"
)

// IsBudget reports whether g is one of the run-wide budget gates.
func (g Gate) IsBudget() bool {
	return g == GateMaxSteps || g == GateMaxCost || g == GateMaxDuration
}

// withDefaults validates p and fills its zero fields.
func (p Policy) withDefaults() (Policy, error) {
	switch {
	case p.MaxSteps < 0:
		return p, fmt.Errorf("%w: max-steps %d is negative", ErrPolicy, p.MaxSteps)
	case p.Width < 0:
		return p, fmt.Errorf("%w: width %d is negative", ErrPolicy, p.Width)
	case p.MaxBranches < 0:
		return p, fmt.Errorf("%w: max-branches %d is negative", ErrPolicy, p.MaxBranches)
	case p.MaxCost < 0 || math.IsNaN(p.MaxCost) || math.IsInf(p.MaxCost, 0):
		return p, fmt.Errorf("%w: max-cost %v must be finite and >= 0", ErrPolicy, p.MaxCost)
	case p.MaxDuration < 0:
		return p, fmt.Errorf("%w: max-duration %v is negative", ErrPolicy, p.MaxDuration)
	case p.MinScore != nil && math.IsNaN(*p.MinScore):
		return p, fmt.Errorf("%w: min-score is NaN", ErrPolicy)
	case p.Target != nil && math.IsNaN(*p.Target):
		return p, fmt.Errorf("%w: target is NaN", ErrPolicy)
	}
	if p.MaxSteps == 0 {
		p.MaxSteps = DefaultMaxSteps
	}
	if p.Width == 0 {
		p.Width = DefaultWidth
	}
	if p.MaxBranches == 0 {
		p.MaxBranches = DefaultMaxBranches
	}
	return p, nil
}

// budgetGate checks the run-wide budgets after a step, in the published
// order (cost, steps, duration; loopforge.md §1.3 step 6). A budget is
// exhausted once used >= limit.
func (p Policy) budgetGate(steps int, cost float64, elapsed time.Duration) (Gate, string, bool) {
	if p.MaxCost > 0 && cost >= p.MaxCost {
		return GateMaxCost, fmt.Sprintf("budget exhausted: cost %s of max-cost %s", formatFloat(cost), formatFloat(p.MaxCost)), true
	}
	if steps >= p.MaxSteps {
		return GateMaxSteps, fmt.Sprintf("budget exhausted: %d of max-steps %d", steps, p.MaxSteps), true
	}
	if p.MaxDuration > 0 && elapsed >= p.MaxDuration {
		return GateMaxDuration, fmt.Sprintf("budget exhausted: elapsed %s of max-duration %s", elapsed, p.MaxDuration), true
	}
	return "", "", false
}
