package plumbing

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/refs"
)

// DeleteRefOptions configures DeleteRef.
type DeleteRefOptions struct {
	// Ref is the ref to delete.
	Ref string
	// Old, when not empty, is the value the ref must hold; without it any
	// existing value is deleted. A missing ref is an error either way.
	Old string
}

// DeleteRefResult is what `tine delete-ref` reports.
type DeleteRefResult struct {
	RefChange
}

// DeleteRef removes a ref under its guard (SPEC §2.5). Its reflog is kept
// and no row is appended (SPEC §2.6: a row's new value must be an oid).
func DeleteRef(ctx context.Context, r *Repo, opt DeleteRefOptions) (*DeleteRefResult, error) {
	name, err := refs.NormalizeName(opt.Ref)
	if err != nil {
		return nil, fmt.Errorf("delete-ref: %w", err)
	}
	if opt.Old == oldAbsent || opt.Old == "0" {
		return nil, fmt.Errorf("delete-ref %s: a deleted ref must exist, --old cannot be absent: %w", name, ErrBadInput)
	}
	expect, old, err := r.expectation(ctx, opt.Old, false, refs.ExpectExists)
	if err != nil {
		return nil, fmt.Errorf("delete-ref %s: old value: %w", name, err)
	}
	if err := r.refs.Delete(ctx, name, expect); err != nil {
		return nil, fmt.Errorf("delete-ref: %w", err)
	}
	return &DeleteRefResult{RefChange{Op: "delete", Ref: name, Old: old}}, nil
}
