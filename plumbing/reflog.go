package plumbing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tinehq/tine/refs"
)

// ReflogOptions configures Reflog.
type ReflogOptions struct {
	// Ref is the ref whose history to show: a ref name, a short name
	// (RefName), or REF@{n} to start at row n.
	Ref string
}

// ReflogRow is one reflog entry. Index n is what REF@{n} resolves to: the
// value the ref was set to n updates ago (0 is the newest row).
type ReflogRow struct {
	Index int    `json:"index"`
	Old   string `json:"old"` // "" when the update created the ref
	New   string `json:"new"`
	Actor string `json:"actor"`
	// TimeNS is the row's time as stored: Unix nanoseconds in decimal.
	TimeNS string    `json:"time_ns"`
	Time   time.Time `json:"time"`
}

// ReflogResult is what `tine reflog REF` reports, newest row first.
type ReflogResult struct {
	Ref     string      `json:"ref"`
	Entries []ReflogRow `json:"entries"`
}

// Reflog returns a ref's history (SPEC §2.6), newest first. A ref that
// exists but has no rows has an empty history, not an error; a deleted
// ref keeps its rows. A name with neither a ref nor rows is
// ErrUnknownRevision. The reflog is history, not authority: a crash
// between a ref move and its row loses the row.
func Reflog(ctx context.Context, r *Repo, opt ReflogOptions) (*ReflogResult, error) {
	base, start, indexed, err := splitReflogIndex(opt.Ref)
	if err != nil {
		return nil, fmt.Errorf("reflog: %w", err)
	}
	if base == "" {
		base = opt.Ref
	}
	name, err := r.RefName(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("reflog: %w", err)
	}
	rows, err := r.reflogNewestFirst(name)
	if err != nil {
		return nil, fmt.Errorf("reflog: %w", err)
	}
	if len(rows) == 0 {
		if _, err := r.refs.Read(ctx, name); errors.Is(err, refs.ErrNotFound) {
			return nil, fmt.Errorf("reflog: no ref %s, and no reflog of it: %w", name, ErrUnknownRevision)
		} else if err != nil {
			return nil, fmt.Errorf("reflog: ref %s: %w", name, err)
		}
	}
	if indexed && start >= len(rows) {
		return nil, fmt.Errorf("reflog: revision %q: the reflog of %s has only %d entries: %w", opt.Ref, name, len(rows), ErrUnknownRevision)
	}
	res := &ReflogResult{Ref: name, Entries: make([]ReflogRow, 0, max(len(rows)-start, 0))}
	for i, e := range rows {
		if i < start {
			continue
		}
		res.Entries = append(res.Entries, ReflogRow{
			Index: i, Old: e.Old.String(), New: e.New.String(), Actor: e.Actor,
			TimeNS: strconv.FormatInt(e.TimeNS, 10), Time: e.Time().UTC(),
		})
	}
	return res, nil
}
