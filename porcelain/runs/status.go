package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// StatusResult is what `tine status` reports.
type StatusResult struct {
	// Current reports that a current run is set (tine switch); otherwise
	// Ref is DefaultRef, what record, import, log and show then use.
	Current bool   `json:"current"`
	Ref     string `json:"ref"`
	// Exists reports that Ref exists; a current ref made by switch
	// --create without a start does not until the first record.
	Exists bool   `json:"exists"`
	Run    string `json:"run,omitempty"`
	Status string `json:"status,omitempty"`
	Events int    `json:"events"`
	// Tips are the run's tip events, described as log describes them.
	Tips []LogEntry `json:"tips"`
	// Seen is the value tine last saw the current ref hold (at switch or
	// after its own append), "" for a ref that did not exist then.
	Seen string `json:"seen,omitempty"`
	// Moved reports that the current ref no longer holds Seen: something
	// other than tine's appends from Seen (update-ref, another tool, a
	// concurrent writer, a delete) moved it.
	Moved bool `json:"moved"`
}

// Status describes the current run (or DefaultRef when none is set): its
// ref, run, status, event count and tips, reading the run object and its
// tip events only, and whether its ref moved under it.
func Status(ctx context.Context, r *plumbing.Repo) (*StatusResult, error) {
	c, err := r.ReadCurrentRun()
	if err != nil {
		return nil, err
	}
	res := &StatusResult{Ref: DefaultRef, Tips: []LogEntry{}}
	if c != nil {
		res.Current, res.Ref, res.Seen = true, c.Ref, c.Seen
	}
	id, err := r.Refs().Read(ctx, res.Ref)
	switch {
	case errors.Is(err, refs.ErrNotFound):
		res.Moved = res.Current && res.Seen != ""
		return res, nil
	case err != nil:
		return nil, fmt.Errorf("ref %s: %w", res.Ref, err)
	}
	res.Exists, res.Run = true, id.String()
	res.Moved = res.Current && res.Seen != res.Run
	if id.Type != objects.TypeRun {
		return res, nil
	}
	run, err := readRun(ctx, r.Objects(), id)
	if err != nil {
		return nil, err
	}
	l, err := newEventList(run)
	if err != nil {
		return nil, err
	}
	res.Status, res.Events = run.Status, l.Len()
	for _, t := range run.Tips {
		e, err := loadEvent(ctx, r.Objects(), run.ID, t)
		if err != nil {
			return nil, err
		}
		res.Tips = append(res.Tips, detached(logEntry(e, nil)))
	}
	return res, nil
}
