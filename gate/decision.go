package gate

import "slices"

// Exit codes of "gate run" and "gate ci" (SPEC §3 Exit codes); cmd/tine
// maps a Decision to them.
const (
	// ExitPassed: no required result blocks.
	ExitPassed = 0
	// ExitBlocked: some required result blocks, or the contract is invalid,
	// or the checkout changed during evaluation.
	ExitBlocked = 1
	// ExitUsage: a usage error.
	ExitUsage = 2
)

// DefaultPendingCode is the command exit code that means "pending" unless
// a constraint sets pending_codes (SPEC §1: EX_TEMPFAIL).
const DefaultPendingCode = 75

// The summary outcomes (SPEC §3).
const (
	OutcomePass               = "PASS"
	OutcomePassWithAdvisories = "PASS WITH ADVISORIES"
	OutcomeBlocked            = "BLOCKED"
)

// Decision is a phase's completion decision.
type Decision struct {
	Phase Phase
	// Passed is true when no result blocks.
	Passed bool
	// Outcome is PASS, PASS WITH ADVISORIES or BLOCKED.
	Outcome string
	// ExitCode is ExitPassed or ExitBlocked.
	ExitCode int
	// Blocking lists the blocking results' ids, in result order.
	Blocking []string
	// RootCauses are the constraints to repair (see RootCauses).
	RootCauses []string
	// Waiting is true when blocked only by pending results: the right
	// next step is to wait, not to repair (pending never consumes a repair).
	Waiting bool
	// Advisories lists advisory results that are not pass, skipped or
	// waived; they never block run or ci but need a disposition in hooks.
	Advisories []string
	// Categories are the failure classes among blocking results, sorted.
	Categories []Category
}

// Decide applies the blocking rule to a phase's results (SPEC §3): the
// phase passes when no result blocks. It fails closed: a nil result, an
// unknown verdict or enforcement, or an unknown phase blocks.
func Decide(phase Phase, results []*Evidence) Decision {
	d := Decision{Phase: phase, Passed: true}
	onlyPending := true
	for _, r := range results {
		if r == nil {
			d.Passed, onlyPending = false, false
			d.Blocking = append(d.Blocking, "")
			continue
		}
		if r.Blocks() {
			d.Passed = false
			d.Blocking = append(d.Blocking, r.ConstraintID)
			onlyPending = onlyPending && r.Verdict == Pending
			if r.Category != "" && !slices.Contains(d.Categories, r.Category) {
				d.Categories = append(d.Categories, r.Category)
			}
		} else if !r.Verdict.Settled() {
			d.Advisories = append(d.Advisories, r.ConstraintID)
		}
	}
	if !phase.valid() {
		d.Passed, onlyPending = false, false
	}
	slices.Sort(d.Categories)
	switch {
	case !d.Passed:
		d.Outcome, d.ExitCode = OutcomeBlocked, ExitBlocked
		d.RootCauses = RootCauses(results)
		d.Waiting = onlyPending && len(d.Blocking) > 0
	case len(d.Advisories) > 0:
		d.Outcome, d.ExitCode = OutcomePassWithAdvisories, ExitPassed
	default:
		d.Outcome, d.ExitCode = OutcomePass, ExitPassed
	}
	return d
}

// DecidePlan is Decide after checking that every planned constraint has
// exactly its result: a planned constraint without one gets an error
// result ("no evidence"), so a lost result can never pass a gate.
// Results for constraints outside the plan are ignored.
func DecidePlan(phase Phase, plan []*Constraint, results []*Evidence) Decision {
	byID := map[string]*Evidence{}
	for _, r := range results {
		if r != nil {
			byID[r.ConstraintID] = r
		}
	}
	ordered := make([]*Evidence, 0, len(plan))
	for _, c := range plan {
		r := byID[c.ID]
		if r == nil || r.Enforcement != c.Enforcement || r.Kind != c.Kind {
			r = &Evidence{ConstraintID: c.ID, Kind: c.Kind, Enforcement: c.Enforcement,
				Verdict: Error, Category: CategoryEnvironment, Message: "No evidence for this constraint"}
		}
		ordered = append(ordered, r)
	}
	return Decide(phase, ordered)
}
