package loop

import (
	"context"
	"time"

	"github.com/tinehq/tine/objects"
)

// Recorder receives everything a run produces, in order: one Start, then for
// each step one Iteration followed by the Forks it created and the Ends it
// caused, and finally one Finish. Payloads are already sanitized and states
// already snapshotted, so a Recorder only stores. An error from any method
// aborts the run and is returned by Run (wrapped): storage failures are never
// silently dropped.
type Recorder interface {
	Start(ctx context.Context, r StartRecord) error
	Iteration(ctx context.Context, r IterationRecord) error
	Fork(ctx context.Context, r ForkRecord) error
	End(ctx context.Context, r EndRecord) error
	Finish(ctx context.Context, r FinishRecord) error
}

// StartRecord opens a run: the root branch and its initial state
// (loopforge.md §3.2 loop_init).
type StartRecord struct {
	Goal    string
	Context string
	// Policy is the effective policy, defaults filled in.
	Policy Policy
	// RootBranch is the root branch's id, always "root".
	RootBranch string
	// Initial is the sanitized initial state.
	Initial Snapshot
	// Time is the run's start on the injected clock.
	Time time.Time
	// Sanitized counts substitutions made in the initial state.
	Sanitized int
}

// IterationRecord is one executed step (loopforge.md §3.2 loop_step, with the
// README's state_after, state_digest and candidates).
type IterationRecord struct {
	// Iteration is the global step number; BranchStep the branch's own.
	Iteration  int
	BranchStep int
	BranchID   string
	// ParentBranch is the branch BranchID forked from; empty for the root.
	ParentBranch string
	// State is the state the step evaluated.
	State Snapshot
	// Observation, Score and Stop are the step's answer; Observation is
	// valid UTF-8.
	Observation string
	Score       float64
	Stop        bool
	// Metadata and Outputs are the sanitized payloads (JSON objects).
	Metadata objects.Value
	Outputs  objects.Value
	// Cost is the step's cost as counted (clamped to finite, >= 0).
	Cost float64
	// Usage, Model and Provider are the step's, Model and Provider valid
	// UTF-8.
	Usage           Usage
	Model, Provider string
	// Started is when the step began; Duration how long it took, both on
	// the injected clock.
	Started  time.Time
	Duration time.Duration
	// Candidates are the proposals in the Step's order, with their fate.
	Candidates []Candidate
	// BestChanged is true when this step became the best snapshot.
	BestChanged bool
	// TotalSteps and TotalCost are the run's totals after this step.
	TotalSteps int
	TotalCost  float64
	// Sanitized counts substitutions made in this record's payloads.
	Sanitized int
}

// Outcome is what became of a proposal.
type Outcome string

// The outcomes of a proposal.
const (
	// OutcomeContinue: the best proposal, adopted by the proposing branch.
	OutcomeContinue Outcome = "continue"
	// OutcomeFork: adopted by a new branch.
	OutcomeFork Outcome = "fork"
	// OutcomeBeyondWidth: ranked past Policy.Width.
	OutcomeBeyondWidth Outcome = "beyond-width"
	// OutcomeNoState: the proposal had no state (it used a width slot).
	OutcomeNoState Outcome = "no-state"
	// OutcomeTooDeep: the proposal's state nests deeper than MaxStateDepth
	// and cannot be copied safely; treated like a proposal with no state.
	OutcomeTooDeep Outcome = "too-deep"
	// OutcomeBranchEnded: the branch ended at this step, nothing adopted.
	OutcomeBranchEnded Outcome = "branch-ended"
)

// Candidate is one proposal as recorded: its digest and its delta against
// the evaluated state (the README's outputs.candidates).
type Candidate struct {
	// Index is the proposal's position in the Step's answer; Rank its
	// position after the stable descending sort by score.
	Index int
	Rank  int
	// Score is the proposal's score; Inherited is true when the proposal
	// had none and took the step's score.
	Score     float64
	Inherited bool
	// State is the proposed state (Value is null for OutcomeNoState).
	State Snapshot
	// Delta compares the proposed state's top-level keys with the
	// evaluated state's.
	Delta Delta
	// Outcome is what happened to it; BranchID is the branch that adopted
	// it (the proposing branch or the new fork), empty otherwise.
	Outcome  Outcome
	BranchID string
}

// ForkRecord is a new branch (loopforge.md §3.2 branch_from_parent).
type ForkRecord struct {
	BranchID     string
	ParentBranch string
	// FromIteration is the global step number of the parent's step that
	// proposed this state; the fork shares the parent's history up to it.
	FromIteration int
	// CandidateIndex and CandidateScore identify the adopted proposal.
	CandidateIndex int
	CandidateScore float64
	// State is the adopted state.
	State Snapshot
}

// EndRecord closes one branch; every branch ends exactly once.
type EndRecord struct {
	BranchID string
	// Gate is why the branch ended; Reason says it in words.
	Gate   Gate
	Reason string
	// Iteration is the global number of the branch's last step, 0 when the
	// branch never ran (a fork pruned or gated while queued).
	Iteration int
	// Steps is how many steps the branch took; Score its last measured or,
	// for a fork that never ran, proposed score.
	Steps int
	Score float64
	// Err is the Step's error text for GateError.
	Err string
	// Elapsed and TotalCost are the run's figures when the branch ended.
	Elapsed   time.Duration
	TotalCost float64
}

// FinishRecord closes the run.
type FinishRecord struct {
	// Gate is why the run stopped: a budget gate, GateCanceled, or
	// GateExhausted when no live branch was left.
	Gate Gate
	// Best is the immutable best snapshot; nil when no step scored.
	Best *BestSnapshot
	// Branches is every branch in creation order, root first.
	Branches   []Branch
	TotalSteps int
	TotalCost  float64
	Elapsed    time.Duration
	// Sanitized counts every substitution made for the Recorder.
	Sanitized int
	// StepErrors counts Steps that returned an error.
	StepErrors int
}
