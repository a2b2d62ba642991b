package plumbing

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// DefaultActor is the reflog actor used when a caller names none (the
// SPEC §2.6 example row's "local").
const DefaultActor = "local"

// UpdateRefOptions configures UpdateRef.
type UpdateRefOptions struct {
	// Ref is the ref to move, with or without "refs/", or the short name
	// of an existing ref (Repo.RefName).
	Ref string
	// New is a revision naming the new value.
	New string
	// Old, when not empty, is a revision the ref must currently hold
	// (compare-and-swap); "absent" is the same as Create.
	Old string
	// Create requires the ref not to exist. Without Old or Create the
	// update accepts whatever the ref holds (git's update-ref without an
	// old value); it is still atomic under the ref's guard.
	Create bool
	// Actor is the reflog actor; empty means DefaultActor.
	Actor string
}

// RefChange is one ref moved (or verified) by an update-ref verb. Old is
// "" when the ref did not exist; New is "" for a deletion.
type RefChange struct {
	// Op is create, update, delete or verify.
	Op string `json:"op"`
	// Ref is the normalized ref name.
	Ref string `json:"ref"`
	// Old is the expected old value: an oid, "" for absent, or "*" for any.
	Old string `json:"old"`
	// New is the new value, "" for a deletion or verification.
	New string `json:"new"`
}

// UpdateRefResult is what `tine update-ref REF NEW` reports.
type UpdateRefResult struct {
	RefChange
}

// UpdateRef moves one ref with a compare-and-swap (SPEC §2.5). A ref not
// holding the expected value is a *refs.StaleError (expected and actual), a
// ref held by another writer a *refs.LockedError; the target must exist and
// pass the namespace's type rule.
func UpdateRef(ctx context.Context, r *Repo, opt UpdateRefOptions) (*UpdateRefResult, error) {
	name, err := r.WriteRefName(ctx, opt.Ref)
	if err != nil {
		return nil, fmt.Errorf("update-ref: %w", err)
	}
	if opt.Create && opt.Old != "" && opt.Old != oldAbsent {
		return nil, fmt.Errorf("update-ref %s: --create and --old %s contradict: %w", name, opt.Old, ErrBadInput)
	}
	newID, err := r.Resolve(ctx, opt.New)
	if err != nil {
		return nil, fmt.Errorf("update-ref %s: new value: %w", name, err)
	}
	expect, old, err := r.expectation(ctx, opt.Old, opt.Create, refs.ExpectAny)
	if err != nil {
		return nil, fmt.Errorf("update-ref %s: old value: %w", name, err)
	}
	op := "update"
	if opt.Create || opt.Old == oldAbsent {
		op = "create"
	}
	if err := r.refs.UpdateExpect(ctx, name, newID, expect, actorOr(opt.Actor)); err != nil {
		return nil, fmt.Errorf("update-ref: %w", err)
	}
	return &UpdateRefResult{RefChange{Op: op, Ref: name, Old: old, New: newID.String()}}, nil
}

// oldAbsent spells "the ref must not exist" where an old value is expected.
const oldAbsent = "absent"

// expectation turns an old-value argument into a refs.Expect and its
// spelling for results: "" or "absent" with create (or "absent" alone)
// means must be absent; "" otherwise means dflt; anything else is a
// revision the ref must hold (a full oid need not still be stored).
func (r *Repo) expectation(ctx context.Context, old string, create bool, dflt refs.Expect) (refs.Expect, string, error) {
	switch {
	case old == oldAbsent || old == "0" || (old == "" && create):
		return refs.ExpectAbsent, "", nil
	case old == "":
		return dflt, "*", nil
	}
	id, err := objects.ParseOIDFor(r.algo, old)
	if err != nil {
		if id, err = r.Resolve(ctx, old); err != nil {
			return refs.Expect{}, "", err
		}
	}
	return refs.ExpectValue(id), id.String(), nil
}

// actorOr returns actor, or DefaultActor when it is empty.
func actorOr(actor string) string {
	if actor == "" {
		return DefaultActor
	}
	return actor
}
