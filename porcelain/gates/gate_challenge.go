package gates

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
)

// Session challenge states (SPEC §6): the required constraints pass and
// the agent owes challenges (challenge) or their resolutions (verify).
const (
	CycleChallenge = "challenge"
	CycleVerify    = "verify"
)

// actionContinuations is the next_action of a spent continuation budget.
const actionContinuations = "The challenge continuation budget is exhausted. Require a human decision."

// newRequestID returns a fresh random challenge request id. A failing
// system random source leaves an id no submission can match, which only
// refuses submissions: it never lets a replay through.
func newRequestID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "unavailable"
	}
	return hex.EncodeToString(b[:])
}

// challengeInputSnapshot mixes the challenge block's watched files into a
// challenge loop's input snapshot (SPEC §6 input snapshot, "challenge").
func challengeInputSnapshot(p *GateProject, cfg *gate.Challenge, input string) (string, error) {
	if cfg == nil {
		return input, nil
	}
	d, err := gate.ChallengeInputDigest(p.Root, cfg)
	if err != nil {
		return "", err
	}
	return snapshotID(objects.Array(objects.String(input), objects.Array(objects.String("challenge"), objects.String(d))))
}

// checkJournalLedger fails closed on a journal whose ledger does not
// validate, as on any other corruption.
func checkJournalLedger(j *loopJournal, loop *gate.Loop) error {
	if j == nil || j.Challenge == nil {
		return nil
	}
	if loop.Challenge == nil {
		return fmt.Errorf("%w: %s: a challenge ledger in a loop without challenges", ErrCycleJournalCorrupt, j.Loop)
	}
	if err := j.Challenge.Validate(loop.Challenge); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCycleJournalCorrupt, j.Loop, err)
	}
	return nil
}

// observeChallenge brings the ledger up to this evaluation (creating it
// on a loop's first cycle) and mixes it into the evidence snapshot, so a
// repair counts as unchanged only when the evidence, the inputs and the
// ledger all stayed the same (SPEC §6 step 5).
func observeChallenge(p *GateProject, loop *gate.Loop, j *loopJournal, run *GateRunResult, input, snap string) (string, error) {
	if loop.Challenge == nil {
		return snap, nil
	}
	if j.Challenge == nil {
		j.Challenge = gate.NewChallengeLedger(newRequestID(), input)
	}
	j.Challenge.Observe(input, verifiableConstraints(p.Contract, run), newRequestID)
	led, err := objects.ParseJSON(mustLedgerJSON(j.Challenge), objects.ParseOptions{MaxIntDigits: 32})
	if err != nil {
		return "", err
	}
	return snapshotID(objects.Array(objects.String(snap), objects.String(input), led))
}

// mustLedgerJSON encodes a ledger; its fields are strings, numbers and
// lists, so encoding cannot fail, and a failure yields invalid JSON that
// the caller's parse refuses.
func mustLedgerJSON(l *gate.ChallengeLedger) []byte {
	raw, err := jsonIndent(l)
	if err != nil {
		return nil
	}
	return raw
}

// verifiableConstraints lists the enabled deterministic stop-phase
// constraints that passed, unwaived, in run: the only ones a "verified"
// resolution may cite (SPEC §6).
func verifiableConstraints(c *gate.Contract, run *GateRunResult) []string {
	out := []string{}
	for _, g := range run.Results {
		k := c.Constraint(g.ID)
		if k != nil && k.Kind.Deterministic() && k.InPhase(gate.PhaseStop) && g.Verdict == string(gate.Pass) && !g.Waived {
			out = append(out, g.ID)
		}
	}
	return out
}

// advanceChallengeCycle applies the challenge gate to a cycle whose
// required constraints pass (SPEC §6 step 9): inputs that moved during
// the evaluation mean waiting; otherwise the ledger decides, and the
// duration, repair, unchanged and continuation budgets are applied after.
func advanceChallengeCycle(p *GateProject, loop *gate.Loop, j *loopJournal, res *CycleResult, input string, elapsed float64) (*CycleResult, error) {
	if loop.Challenge == nil || res.State != CyclePassed {
		return res, nil
	}
	after, err := loopInputSnapshot(p, loop.Phase, j.Goal)
	if err == nil {
		after, err = challengeInputSnapshot(p, loop.Challenge, after)
	}
	if err != nil {
		return nil, err
	}
	if after != input {
		res.State, res.NextAction = CycleWaiting, "The inputs changed while the gate ran. Make no edits and run one cycle."
		return res, nil
	}
	step := gate.AdvanceChallenge(loop.ID, loop.Challenge, j.Challenge, newRequestID)
	res.State, res.NextAction, res.BlockingChallenges = step.State, step.Action, step.Blocking
	if !slices.Contains([]string{CycleChallenge, CycleVerify, CycleRepair}, res.State) {
		return res, nil
	}
	switch {
	case elapsed >= loop.MaxDurationSeconds:
		res.State, res.NextAction = CycleBudgetExhausted, actionDuration
	case j.RepairAttempt >= loop.MaxRepairAttempts:
		res.State, res.NextAction = CycleBudgetExhausted, actionAttempts
	case j.UnchangedRepairs >= loop.MaxUnchangedRepairs:
		res.State, res.NextAction = CycleHumanRequired, actionUnchanged
	case j.Continuations >= loop.Challenge.MaxContinuations:
		res.State, res.NextAction = CycleBudgetExhausted, actionContinuations
	}
	return res, nil
}

// challengeHint is the session-start note for a contract whose stop loop
// has session challenges: the agent learns the verbs before it is asked.
func challengeHint(c *gate.Contract) string {
	for _, l := range c.Loops {
		if l.Challenge != nil {
			return fmt.Sprintf(" Loop %s has session challenges: when a cycle asks for them, review your own work with `tine gate challenge show %s` and answer with `tine gate challenge submit %s --file FILE`, in this session.", l.ID, l.ID, l.ID)
		}
	}
	return ""
}
