package gate

// Verdict is a constraint result's outcome (SPEC §3).
type Verdict string

// The seven verdicts.
const (
	// Pass: success, or the threshold met.
	Pass Verdict = "pass"
	// Fail: a real policy failure, or a dependency failed.
	Fail Verdict = "fail"
	// Pending: an exit code in pending_codes (75 by default), or a
	// dependency pending. It never passes and never consumes a repair.
	Pending Verdict = "pending"
	// Uncertain: a rubric without quorum while an evaluator erred.
	Uncertain Verdict = "uncertain"
	// Error: the constraint could not be evaluated (spawn, timeout, output
	// overflow, parse failure, missing baseline, dependency error).
	Error Verdict = "error"
	// Waived: a deterministic non-pass result with a valid human waiver.
	Waived Verdict = "waived"
	// Skipped: never produced by the engine; accepted and non-blocking
	// (SPEC Surprises 2).
	Skipped Verdict = "skipped"
)

// Verdicts lists every verdict.
var Verdicts = []Verdict{Pass, Fail, Pending, Uncertain, Error, Waived, Skipped}

// Valid reports whether v is one of the seven verdicts.
func (v Verdict) Valid() bool {
	for _, x := range Verdicts {
		if x == v {
			return true
		}
	}
	return false
}

// Settled reports whether v counts as satisfied: pass, skipped or waived.
func (v Verdict) Settled() bool { return v == Pass || v == Skipped || v == Waived }

// Blocks is ConstraintLoop's blocking rule (SPEC §3): a result blocks when
// it is required and not pass, skipped or waived. An unknown verdict or
// enforcement blocks: gate fails closed.
func Blocks(e Enforcement, v Verdict) bool {
	switch {
	case !v.Valid():
		return true
	case e == Advisory:
		return false
	case e == Required:
		return !v.Settled()
	}
	return true
}

// Category classifies a non-pass result (SPEC §2 failure_category).
type Category string

// The failure categories; the empty category means none.
const (
	// CategoryConstraint is a real policy failure.
	CategoryConstraint Category = "constraint"
	// CategoryEnvironment is a startup, parse, timeout, evaluator or
	// baseline problem; such results are rerun rather than reused.
	CategoryEnvironment Category = "environment"
)
