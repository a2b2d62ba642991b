package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// TagOptions configures Tag.
type TagOptions struct {
	// Name is the tag, with or without "tags/" (or "refs/tags/").
	Name string
	// Target is a revision naming any object.
	Target string
	// Force moves an existing tag (by compare-and-swap from the value read).
	Force bool
	// Actor names the writer in the reflog.
	Actor string
}

// TagResult is what `tine tag` reports.
type TagResult struct {
	Ref    string       `json:"ref"`
	OID    string       `json:"oid"`
	Type   objects.Type `json:"type"`
	Old    string       `json:"old,omitempty"`
	Moved  bool         `json:"moved"`
	NoDiff bool         `json:"unchanged,omitempty"`
}

// Tag points tags/NAME at any object. Like git, an existing tag is refused
// (ErrRefExists) unless Force; a forced move is still a compare-and-swap
// from the value just read, so a concurrent writer is not overwritten.
func Tag(ctx context.Context, r *plumbing.Repo, opt TagOptions) (*TagResult, error) {
	name := strings.TrimPrefix(opt.Name, "refs/")
	if !strings.HasPrefix(name, "tags/") {
		name = "tags/" + name
	}
	ref, err := refs.NormalizeName(name)
	if err != nil {
		return nil, fmt.Errorf("tag %q: %w", opt.Name, err)
	}
	// REV~N resolves lazily to a stored run; a derived one is refused
	// (plumbing.NotStoredError says how to store it).
	id, err := r.Resolve(ctx, opt.Target)
	if err != nil {
		return nil, err
	}
	res := &TagResult{Ref: ref, OID: id.String(), Type: id.Type}
	old, err := r.Refs().Read(ctx, ref)
	switch {
	case errors.Is(err, refs.ErrNotFound):
		old = objects.OID{}
	case err != nil:
		return nil, fmt.Errorf("ref %s: %w", ref, err)
	case !opt.Force:
		return nil, fmt.Errorf("%s points at %s: %w; use --force to move it", ref, old, ErrRefExists)
	case old == id:
		// Nothing to move, but confirm it under the guard like any
		// writer of the tag: that also recovers what a killed writer of
		// it left (refs.Store.Verify).
		if err := r.Refs().Verify(ctx, ref, refs.ExpectValue(id)); err != nil {
			return nil, fmt.Errorf("tag %s: %w", ref, err)
		}
		res.Old, res.NoDiff = old.String(), true
		return res, nil
	}
	actor := OrDefault(opt.Actor, DefaultActor)
	if err := r.Refs().UpdateExpect(ctx, ref, id, refs.ExpectValue(old), actor); err != nil {
		return nil, fmt.Errorf("tag %s: %w", ref, err)
	}
	if !old.IsZero() {
		res.Old, res.Moved = old.String(), true
	}
	return res, nil
}
