package gate

import (
	"errors"
	"fmt"
)

// Sentinel errors of package gate; callers branch on them with errors.Is.
var (
	// ErrContract reports a contract file that is not a valid ConstraintLoop
	// schema version 1 contract; the wrapped *ContractError list names lines.
	ErrContract = errors.New("invalid gate contract")
	// ErrNoContract reports a project without any of the contract file names.
	ErrNoContract = errors.New("no gate contract found")
	// ErrUnknownConstraint reports an identifier the contract does not define.
	ErrUnknownConstraint = errors.New("unknown constraint")
	// ErrDigestInput reports digest input that cannot be framed (an empty
	// constraint id, a path that is not project-relative, a duplicate path).
	ErrDigestInput = errors.New("invalid input digest data")
	// ErrNotWaivable reports a waiver request the validity rules refuse.
	ErrNotWaivable = errors.New("constraint cannot be waived")
	// ErrNotAcknowledgeable reports an acknowledgement request the rules refuse.
	ErrNotAcknowledgeable = errors.New("constraint cannot be acknowledged")
	// ErrEvidence reports a stored evidence value that does not decode; the
	// caller treats it as missing, i.e. stale (SPEC §10: corrupt evidence reruns).
	ErrEvidence = errors.New("invalid gate evidence")
	// ErrChallenge reports a challenge submission the session challenge
	// rules refuse; the wrapped message names the rule and the challenge.
	ErrChallenge = errors.New("challenge submission refused")
	// ErrForeignHook reports a git pre-push hook tine did not write: tine
	// never replaces or edits it.
	ErrForeignHook = errors.New("a pre-push hook that tine did not write is installed")
)

// ContractError is one problem in a contract file, located by its line.
type ContractError struct {
	// Line is the 1-based line of the offending node; 0 when unknown.
	Line int
	// Msg says what is wrong, naming the key and the constraint.
	Msg string
}

// Error returns "line N: msg".
func (e *ContractError) Error() string {
	if e.Line <= 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}
