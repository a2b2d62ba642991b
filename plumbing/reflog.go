package plumbing

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/tinehq/tine/refs"
)

// ReflogOptions configures Reflog.
type ReflogOptions struct {
	// Ref is the ref whose history to show.
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
// was never updated has an empty history, not an error. The reflog is
// history, not authority: a crash between a ref move and its row loses the
// row.
func Reflog(ctx context.Context, r *Repo, opt ReflogOptions) (*ReflogResult, error) {
	name, err := refs.NormalizeName(opt.Ref)
	if err != nil {
		return nil, fmt.Errorf("reflog: %w", err)
	}
	rows, err := r.reflogNewestFirst(name)
	if err != nil {
		return nil, fmt.Errorf("reflog: %w", err)
	}
	res := &ReflogResult{Ref: name, Entries: make([]ReflogRow, len(rows))}
	for i, e := range rows {
		res.Entries[i] = ReflogRow{
			Index: i, Old: e.Old.String(), New: e.New.String(), Actor: e.Actor,
			TimeNS: strconv.FormatInt(e.TimeNS, 10), Time: e.Time().UTC(),
		}
	}
	return res, nil
}
