package gate

import (
	"fmt"
	"strings"
)

// Waiver is a human's decision to accept one exact non-pass result of a
// deterministic constraint locally (SPEC §4). It binds the input digest,
// the contract identity and the evidence digest; any change to any of them
// voids it. It never applies in push or ci, and never to a rubric.
type Waiver struct {
	ConstraintID   string
	InputDigest    string
	ContractDigest string
	EvidenceDigest string
	Reason         string
}

// NewWaiver checks the creation rules and returns the waiver for ev
// (SPEC §4): the constraint exists in contract, is deterministic, the
// reason is not blank, ev is fresh evidence for it at currentDigest, and ev
// is not already pass, skipped or waived.
func NewWaiver(contract *Contract, id string, ev *Evidence, currentDigest, reason string) (*Waiver, error) {
	c := contract.Constraint(id)
	if c == nil {
		return nil, fmt.Errorf("%w: %w %s", ErrNotWaivable, ErrUnknownConstraint, id)
	}
	if !c.Kind.Deterministic() {
		return nil, fmt.Errorf("%w: rubric constraints cannot be waived; acknowledge advisory evidence or obtain fresh quorum (%s)", ErrNotWaivable, id)
	}
	if strings.TrimSpace(reason) == "" {
		return nil, fmt.Errorf("%w: a waiver needs a reason (%s)", ErrNotWaivable, id)
	}
	if ev == nil || ev.ConstraintID != id || !Fresh(c, ev.InputDigest, currentDigest) {
		return nil, fmt.Errorf("%w: no fresh evidence exists for %s; run the constraint before deciding whether to waive it", ErrNotWaivable, id)
	}
	if ev.Verdict.Settled() || !ev.Verdict.Valid() {
		return nil, fmt.Errorf("%w: %s is already %s", ErrNotWaivable, id, ev.Verdict)
	}
	d, err := ev.Digest()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotWaivable, err)
	}
	return &Waiver{ConstraintID: id, InputDigest: currentDigest, ContractDigest: contract.Digest, EvidenceDigest: d, Reason: reason}, nil
}

// WaiverApplies reports whether w validly waives cached evidence ev of
// constraint c now, and why not: the phase allows local waivers (change,
// stop), c is deterministic, w names c, the reason is not blank, and the
// input digest (equal to currentDigest), contract digest and evidence
// digest all match exactly. It is pure: callers in ci never call it.
func WaiverApplies(phase Phase, contract *Contract, c *Constraint, ev *Evidence, currentDigest string, w *Waiver) (bool, string) {
	switch {
	case !phase.AllowsLocalWaivers():
		return false, "phase " + string(phase) + " ignores local waivers"
	case w == nil || c == nil || ev == nil || contract == nil:
		return false, "no waiver"
	case !c.Kind.Deterministic():
		return false, "rubric constraints cannot be waived"
	case w.ConstraintID != c.ID || ev.ConstraintID != c.ID:
		return false, "waiver is for another constraint"
	case strings.TrimSpace(w.Reason) == "":
		return false, "waiver has no reason"
	case ev.Verdict.Settled() || !ev.Verdict.Valid():
		return false, "evidence does not need a waiver"
	case !Fresh(c, ev.InputDigest, currentDigest) || w.InputDigest != currentDigest:
		return false, "void: inputs changed since the waiver"
	case w.ContractDigest != contract.Digest:
		return false, "void: the contract changed since the waiver"
	}
	d, err := ev.Digest()
	if err != nil || d != w.EvidenceDigest {
		return false, "void: the evidence changed since the waiver"
	}
	return true, "waived"
}

// Waive returns a copy of ev with verdict waived and the human's reason as
// its message, or nil when WaiverApplies refuses. The copy is for the
// decision only and is never stored (SPEC §4: the stored result stays the
// original failure).
func Waive(phase Phase, contract *Contract, c *Constraint, ev *Evidence, currentDigest string, w *Waiver) *Evidence {
	if ok, _ := WaiverApplies(phase, contract, c, ev, currentDigest, w); !ok {
		return nil
	}
	cp := *ev
	cp.Verdict = Waived
	cp.Message = "Locally waived by a human: " + newRedactor(nil).text(w.Reason)
	return &cp
}

// Acknowledgement records why an advisory non-pass result is accepted
// (SPEC §4). It never changes a verdict; it only settles the disposition
// a stop hook asks for, for the exact evidence it names.
type Acknowledgement struct {
	ConstraintID   string
	EvidenceDigest string
	Reason         string
}

// NewAcknowledgement checks the creation rules (SPEC §4): the constraint
// is advisory, ev is its latest evidence and fresh at currentDigest, ev is
// not pass, skipped or waived, and the reason is not blank.
func NewAcknowledgement(contract *Contract, id string, ev *Evidence, currentDigest, reason string) (*Acknowledgement, error) {
	c := contract.Constraint(id)
	switch {
	case c == nil:
		return nil, fmt.Errorf("%w: %w %s", ErrNotAcknowledgeable, ErrUnknownConstraint, id)
	case c.Enforcement != Advisory:
		return nil, fmt.Errorf("%w: only advisory constraints may be acknowledged (%s)", ErrNotAcknowledgeable, id)
	case ev == nil || ev.ConstraintID != id || !Fresh(c, ev.InputDigest, currentDigest):
		return nil, fmt.Errorf("%w: no fresh evidence exists for %s", ErrNotAcknowledgeable, id)
	case ev.Verdict.Settled() || !ev.Verdict.Valid():
		return nil, fmt.Errorf("%w: %s is already %s", ErrNotAcknowledgeable, id, ev.Verdict)
	case strings.TrimSpace(reason) == "":
		return nil, fmt.Errorf("%w: an acknowledgement needs a reason (%s)", ErrNotAcknowledgeable, id)
	}
	d, err := ev.Digest()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotAcknowledgeable, err)
	}
	return &Acknowledgement{ConstraintID: id, EvidenceDigest: d, Reason: reason}, nil
}

// Covers reports whether a acknowledges exactly ev.
func (a *Acknowledgement) Covers(ev *Evidence) bool {
	if a == nil || ev == nil || a.ConstraintID != ev.ConstraintID || strings.TrimSpace(a.Reason) == "" {
		return false
	}
	d, err := ev.Digest()
	return err == nil && d == a.EvidenceDigest
}
