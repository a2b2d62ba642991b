package gates

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Loop states (SPEC §6 LoopState).
const (
	CyclePassed          = "passed"
	CycleRepair          = "repair"
	CycleWaiting         = "waiting"
	CycleHumanRequired   = "human_required"
	CycleBudgetExhausted = "budget_exhausted"
	CycleError           = "error"
)

// CycleExitCode returns the exit code of gate cycle and gate supervise for
// a state (SPEC §6 CYCLE_EXIT_CODES), and whether the state is known;
// challenge (15) and verify (16) come from loops with session challenge
// gates (gate_challenge.go). A switch, not a package-level map: every tine
// process would build the map at start for the few that run a gate.
func CycleExitCode(state string) (int, bool) {
	switch state {
	case CyclePassed:
		return 0, true
	case CycleRepair:
		return 10, true
	case CycleWaiting:
		return 11, true
	case CycleHumanRequired:
		return 12, true
	case CycleBudgetExhausted:
		return 13, true
	case CycleError:
		return 14, true
	case CycleChallenge:
		return 15, true
	case CycleVerify:
		return 16, true
	}
	return 0, false
}

// The next_action texts (SPEC §6 decision table).
const (
	actionPassed    = "Fresh required evidence passes. Stop."
	actionError     = "Constraint evaluation is unreliable. Inspect evidence and require a human."
	actionDuration  = "The loop duration budget is exhausted. Require a human decision."
	actionWaiting   = "Evidence is pending. Make no edits and run one cycle after the wake interval."
	actionAttempts  = "The repair-attempt budget is exhausted. Require a human decision."
	actionUnchanged = "Repairs left evidence unchanged. Require a human decision."
	actionRepair    = "Repair only the listed blocking constraints, then run exactly one new cycle."
)

// CycleResult is one loop transition (SPEC §6 CycleResult): what gate cycle
// --json prints and gate supervise emits as JSON Lines. GateRun is tine's
// addition: the gate run whose events are this transition's evidence.
type CycleResult struct {
	SchemaVersion       int      `json:"schema_version"`
	Loop                string   `json:"loop"`
	State               string   `json:"state"`
	Snapshot            string   `json:"snapshot"`
	Observation         int      `json:"observation"`
	RepairAttempt       int      `json:"repair_attempt"`
	NextAction          string   `json:"next_action"`
	WakeAfterSeconds    float64  `json:"wake_after_seconds"`
	BlockingConstraints []string `json:"blocking_constraints"`
	BlockingChallenges  []string `json:"blocking_challenges"`
	GateRun             string   `json:"gate_run,omitempty"`
}

// ExitCode is the state's exit code; an unknown state is an error (14).
func (c *CycleResult) ExitCode() int {
	if code, ok := CycleExitCode(c.State); ok {
		return code
	}
	code, _ := CycleExitCode(CycleError)
	return code
}

// CycleErrorResult is the error-state answer for a cycle that could not
// run (corrupt journal, invalid contract, checkout moved): exit 14, and the
// journal untouched so no budget is reset.
func CycleErrorResult(loop string, err error) *CycleResult {
	return &CycleResult{SchemaVersion: 1, Loop: loop, State: CycleError, NextAction: redactText(err.Error()) + ". Require a human decision.",
		BlockingConstraints: []string{}, BlockingChallenges: []string{}}
}

// CycleOptions configures RunCycle.
type CycleOptions struct {
	// Root is the project directory; "" is the current directory.
	Root string
	// Goal replaces the journal's goal when not empty.
	Goal string
	// Continuation marks a call from the stop hook (SPEC §6 shared ledger).
	Continuation bool
	// Env is the constraints' environment; nil means os.Environ().
	Env []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in reflogs.
	Actor string
	// Progress receives RunGate's progress.
	Progress func(GateProgress)
}

// RunCycle performs one journaled transition of the contract's loop name
// (SPEC §6 run_cycle), under the journal's file lock: load the journal
// (corrupt fails closed; a new contract or a finished task starts a fresh
// budget), take the polling fast path when still waiting, else run the
// gate for the loop's phase, account for the repair the previous transition
// asked for, decide the state, and persist the journal atomically.
func RunCycle(ctx context.Context, r *plumbing.Repo, name string, opt CycleOptions) (*CycleResult, error) {
	if err := checkLoopName(name); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("loop %s: a convergence loop needs a tine repository for its journal and evidence", name)
	}
	now := runs.Clock(opt.Now)
	proj, err := LoadGateProject(opt.Root)
	if err != nil {
		return nil, err
	}
	var loop *gate.Loop
	for _, l := range proj.Contract.Loops {
		if l.ID == name {
			loop = l
		}
	}
	if loop == nil {
		return nil, fmt.Errorf("%w: the contract defines no loop %q", ErrGateLoopName, name)
	}
	stateDir := GateStateDir(r)
	lock, err := lockLoop(ctx, stateDir, name)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()

	t := epoch(now())
	j, err := loadJournal(stateDir, name)
	if err != nil {
		return nil, err
	}
	if err := checkJournalLedger(j, loop); err != nil && j.ContractDigest == proj.Contract.Digest {
		return nil, err
	}
	if j == nil || j.ContractDigest != proj.Contract.Digest {
		j = newJournal(name, proj.Contract.Digest, t, j)
	}
	if opt.Goal != "" {
		j.Goal = opt.Goal
	}
	if opt.Continuation {
		j.Continuations++
	}
	input, err := loopInputSnapshot(proj, loop.Phase, j.Goal)
	if err == nil {
		input, err = challengeInputSnapshot(proj, loop.Challenge, input)
	}
	if err != nil {
		return nil, err
	}
	if j.PriorState == CyclePassed && input != j.InputSnapshot {
		// SPEC §6: the finished task is done; a new one gets a new budget.
		j = newJournal(name, proj.Contract.Digest, t, j)
	}
	interval := loop.IntervalSeconds
	if j.PriorState == CycleWaiting && input == j.InputSnapshot && j.LastResult != nil &&
		t-j.UpdatedAt < interval && t-j.StartedAt < loop.MaxDurationSeconds {
		// Polling fast path: nothing runs and no repair is consumed.
		res := *j.LastResult
		j.Observation++
		res.Observation = j.Observation
		res.WakeAfterSeconds = interval - (t - j.UpdatedAt)
		j.LastResult = &res
		return &res, saveJournal(stateDir, j)
	}
	run, err := RunGate(ctx, r, GateRunOptions{Root: proj.Root, Phase: loop.Phase, CI: loop.Phase == gate.PhaseCI,
		RefreshPending: true, Env: opt.Env, Goal: j.Goal, Now: now, Actor: opt.Actor, Progress: opt.Progress})
	if err != nil {
		return nil, fmt.Errorf("loop %s: %w", name, err)
	}
	snap, err := evidenceSnapshot(run)
	if err == nil {
		snap, err = observeChallenge(proj, loop, j, run, input, snap)
	}
	if err != nil {
		return nil, fmt.Errorf("loop %s: %w", name, err)
	}
	j.Observation++
	if j.PriorState == CycleRepair {
		// SPEC §6: a repair is consumed when a later cycle observes it.
		j.RepairAttempt++
		if j.PriorSnapshot == snap {
			j.UnchangedRepairs++
		} else {
			j.UnchangedRepairs = 0
		}
	}
	res := decideCycle(loop, j, run, epoch(now())-j.StartedAt)
	if res, err = advanceChallengeCycle(proj, loop, j, res, input, epoch(now())-j.StartedAt); err != nil {
		return nil, fmt.Errorf("loop %s: %w", name, err)
	}
	res.Snapshot, res.GateRun = snap, run.Run
	if after, err := GateCheckout(proj.Root); err != nil || after != proj.Checkout {
		return nil, fmt.Errorf("loop %s: %w", name, ErrGateCheckoutChanged)
	}
	j.PriorState, j.PriorSnapshot, j.InputSnapshot = res.State, snap, input
	j.UpdatedAt, j.LastResult, j.LastRun = math.Max(epoch(now()), j.StartedAt), res, run.Run
	return res, saveJournal(stateDir, j)
}

// decideCycle applies SPEC §6's table; the first matching rule wins.
func decideCycle(loop *gate.Loop, j *loopJournal, run *GateRunResult, elapsed float64) *CycleResult {
	res := &CycleResult{SchemaVersion: 1, Loop: j.Loop, Observation: j.Observation, RepairAttempt: j.RepairAttempt,
		BlockingConstraints: []string{}, BlockingChallenges: []string{}}
	roots := run.RootCauses
	if len(roots) == 0 {
		roots = run.Blocking
	}
	byID := map[string]*GateResult{}
	for _, g := range run.Results {
		byID[g.ID] = g
	}
	var pending, unreliable bool
	for _, id := range roots {
		switch v := byID[id]; {
		case v == nil || v.Verdict == string(gate.Error) || v.Verdict == string(gate.Uncertain):
			unreliable = true
		case v.Verdict == string(gate.Pending):
			pending = true
		}
	}
	set := func(state, action string) *CycleResult {
		res.State, res.NextAction = state, action
		if state != CyclePassed {
			res.BlockingConstraints = append(res.BlockingConstraints, roots...)
		}
		return res
	}
	switch {
	case run.Decision.Passed:
		return set(CyclePassed, actionPassed)
	case unreliable:
		return set(CycleError, actionError)
	case elapsed >= loop.MaxDurationSeconds:
		return set(CycleBudgetExhausted, actionDuration)
	case pending:
		res.WakeAfterSeconds = loop.IntervalSeconds
		return set(CycleWaiting, actionWaiting)
	case j.RepairAttempt >= loop.MaxRepairAttempts:
		return set(CycleBudgetExhausted, actionAttempts)
	case j.UnchangedRepairs >= loop.MaxUnchangedRepairs:
		return set(CycleHumanRequired, actionUnchanged)
	default:
		return set(CycleRepair, actionRepair)
	}
}

// newJournal starts a fresh budget, keeping the goal of old when given.
func newJournal(name, contract string, t float64, old *loopJournal) *loopJournal {
	j := &loopJournal{SchemaVersion: 1, Loop: name, ContractDigest: contract, StartedAt: t, UpdatedAt: t}
	if old != nil {
		j.Goal = old.Goal
	}
	return j
}

// loopInputSnapshot names the inputs before evaluation (SPEC §6): each
// applicable constraint's input digest, the goal and the checkout.
func loopInputSnapshot(p *GateProject, phase gate.Phase, goal string) (string, error) {
	plan, err := gate.Plan(p.Contract, phase)
	if err != nil {
		return "", err
	}
	var items []objects.Value
	for _, c := range plan {
		d, err := gate.ComputeInputDigest(p.Root, p.Contract, c, p.Checkout)
		if err != nil {
			return "", fmt.Errorf("constraint %s: %w", c.ID, err)
		}
		items = append(items, objects.Array(objects.String(c.ID), objects.String(d)))
	}
	co, err := p.Checkout.Snapshot()
	if err != nil {
		return "", err
	}
	items = append(items, objects.Array(objects.String("goal"), objects.String(goal)),
		objects.Array(objects.String("checkout"), objects.String(string(co))))
	return snapshotID(objects.Array(items...))
}

// evidenceSnapshot names what the gate observed (SPEC §6): the contract
// and, per result, its input digest, verdict and findings. Two cycles with
// the same snapshot saw the same evidence: a repair changed nothing.
func evidenceSnapshot(run *GateRunResult) (string, error) {
	var rs []objects.Value
	for _, g := range run.Results {
		findings := objects.Array()
		if g.Evidence != nil {
			if f, at := jdGet(g.Evidence.JSON(), "findings"); at >= 0 {
				findings = f
			}
		}
		rs = append(rs, jdObject(jdKV("constraint_id", objects.String(g.ID)), jdKV("input_digest", objects.String(g.InputDigest)),
			jdKV("verdict", objects.String(g.Verdict)), jdKV("findings", findings)))
	}
	return snapshotID(jdObject(jdKV("contract_digest", objects.String(run.ContractDigest)), jdKV("results", objects.Array(rs...))))
}

// epoch is t as Unix seconds.
func epoch(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// lockLoop takes the journal's exclusive file lock, waiting for a cycle
// that holds it (a cycle runs the gate, so this may take a while).
func lockLoop(ctx context.Context, stateDir, name string) (*flock.Flock, error) {
	lockName := "loops/" + name + ".lock"
	l, err := stateLock(stateDir, lockName)
	if err != nil {
		return nil, fmt.Errorf("loop %s: %w", name, err)
	}
	ok, err := l.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("loop %s: the journal lock: %w", name, lockStateError(stateDir, lockName, err))
	}
	if !ok {
		return nil, fmt.Errorf("loop %s: the journal lock was not acquired", name)
	}
	return l, nil
}
