package loop

import (
	"context"
	"time"

	"github.com/tinehq/tine/objects"
)

// Step evaluates one branch's state. It returns what it observed, the score
// of the state it was given and the next states it proposes. A returned
// error ends only that branch (reason GateError); a Step that honours ctx
// lets a caller cancel the whole run.
type Step func(ctx context.Context, in StepInput) (StepResult, error)

// StepInput is what a Step sees (loopforge.md §1.1 LoopStepContext).
type StepInput struct {
	// Goal and Context are the run's, unchanged.
	Goal    string
	Context string
	// State is the branch's current state: the initial state for the root,
	// otherwise the proposal the branch adopted. The Step owns this copy.
	State objects.Value
	// Iteration is the global step number, 1-based, counted once across
	// all branches.
	Iteration int
	// BranchStep is the step number within the branch, 1-based; a fork
	// restarts at 1 (loopforge.md §1.1, which the built-in strategies use).
	BranchStep int
	// BranchID names the branch ("root", "alt-b2", ...); ParentBranch is
	// the branch it forked from, empty for the root.
	BranchID     string
	ParentBranch string
	// BestScore is the best snapshot's score; HasBest is false before any
	// step has become best.
	BestScore float64
	HasBest   bool
	// Elapsed is the run's age on the injected clock when the step starts.
	Elapsed time.Duration
	// TotalCost is the run's spend so far, every step counted once;
	// BranchCost is the spend of this branch's own steps.
	TotalCost  float64
	BranchCost float64
}

// StepResult is a Step's answer (loopforge.md §1.1 LoopStepResult).
type StepResult struct {
	// Observation is free text describing what the step saw.
	Observation string
	// Score rates StepInput.State; higher is better. NaN never becomes best.
	Score float64
	// Stop ends the branch after this step (reason GateStop).
	Stop bool
	// Proposals are the candidate next states, in the Step's order.
	Proposals []Proposal
	// Metadata and Outputs are free-form payloads handed to the Recorder
	// after sanitization (Sanitize); values may be any Go data or
	// objects.Value.
	Metadata map[string]any
	Outputs  map[string]any
	// Cost is what the step spent, counted once toward Policy.MaxCost.
	// Negative or non-finite costs count as zero.
	Cost float64
	// Usage is the tokens a model step consumed; zero when unknown.
	Usage Usage
	// Model and Provider name the model that answered ("" for none); the
	// Recorder writes them as the event's model and provider.
	Model, Provider string
}

// Usage is a model call's token use in exclusive dimensions, so they add
// up: Input excludes the cached input tokens counted in CacheRead. They
// are recorded as the event's usage {input, cache_read, output, total}
// (OpenTine's token dimensions; total is the sum).
type Usage struct {
	Input, CacheRead, Output int64
}

// IsZero reports whether no tokens were counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// Proposal is one proposed next state. A proposal whose State is JSON null
// (the zero Value) has no state: it is skipped but still uses a width slot
// (loopforge.md §1.3 step 10).
type Proposal struct {
	// State is the proposed next state.
	State objects.Value
	// Score is the proposal's predicted score; nil inherits the step's
	// Score (loopforge.md §1.3: a missing score inherits the parent's).
	Score *float64
}

// Propose returns a proposal of state with the given score.
func Propose(state objects.Value, score float64) Proposal {
	return Proposal{State: state, Score: &score}
}

// ProposeUnscored returns a proposal of state that inherits the step's score.
func ProposeUnscored(state objects.Value) Proposal {
	return Proposal{State: state}
}
