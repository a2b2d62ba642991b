package objects

import (
	"bytes"
	"fmt"
)

// CheckAnnotationChain applies the annotation chain rule of SPEC §1.5.5 (op
// annotation.chain): when previous_id is set, the predecessor must be
// readable and an annotation (chain.previous-unavailable) and carry the same
// target_id (chain.target-changed). Only the direct predecessor is read: it
// passed the same check when it was stored. It returns nil for an object
// that is not an annotation.
func CheckAnnotationChain(ann *Object, r Resolver) error {
	if ann.Type != TypeAnnotation {
		return nil
	}
	if err := checkChain(ann, r); err != nil {
		return fmt.Errorf("annotation %s: %w", ann.ID, err)
	}
	return nil
}

func checkChain(ann *Object, r Resolver) error {
	p := linkParser{o: ann, a: ann.ID.Algo}
	pl, err := p.payload(ReasonLinkEvidenceNotList)
	if err != nil {
		return err
	}
	prevID, ok, err := p.optionalOID(pl, "previous_id", TypeAnnotation, ReasonLinkAnnotationPreviousNotAnnotation)
	if err != nil || !ok {
		return err
	}
	prev, err := r.Resolve(prevID)
	if err != nil {
		// Keep both: the chain reason for callers that branch on it, and
		// the store's failure for the human reading the message.
		return fmt.Errorf("%w: %w", Errorf(ReasonChainPreviousUnavailable, "previous %s cannot be read", prevID), err)
	}
	if prev == nil {
		return Errorf(ReasonChainPreviousUnavailable, "previous %s is not available", prevID)
	}
	if prev.Type != TypeAnnotation || prev.Value.Kind != KindObject {
		return Errorf(ReasonChainPreviousUnavailable, "previous %s is not an annotation", prevID)
	}
	// The reference compares payload.get("target_id") values, so an absent
	// key equals null.
	mine, _ := pl.Get("target_id")
	theirs, _ := prev.Value.Get("target_id")
	if !sameJSON(mine, theirs) {
		return Errorf(ReasonChainTargetChanged, "previous %s has a different target_id", prevID)
	}
	return nil
}

// sameJSON reports whether two values are the same JSON value, comparing
// their canonical encodings; the zero Value (an absent key) counts as null.
func sameJSON(a, b Value) bool {
	ca, errA := CanonV3(a)
	cb, errB := CanonV3(b)
	if errA != nil || errB != nil {
		return false
	}
	return bytes.Equal(ca, cb)
}
