package runs

import (
	"context"
	"fmt"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// ResumeOptions configures Resume.
type ResumeOptions struct {
	// Ref names the run's ref (a full or short ref name).
	Ref string
	// Now is the clock; nil means time.Now (unused today: a resumed run
	// keeps its created_at).
	Now func() time.Time
	// Actor names the writer in the reflog.
	Actor string
}

// ResumeResult is what `tine resume` reports.
type ResumeResult struct {
	Ref            string   `json:"ref"`
	Run            string   `json:"run"`
	Previous       string   `json:"previous,omitempty"`
	PreviousStatus string   `json:"previous_status"`
	AlreadyRunning bool     `json:"already_running"`
	Tips           []string `json:"tips"`
	// Continue is the command that appends to the resumed run.
	Continue string `json:"continue"`
}

// Resume makes the run at a ref running again: a new run object equal to
// the current one with status "running", moved onto the ref by
// compare-and-swap. A run that is already running is left alone
// (AlreadyRunning). Events are then appended with record --ref or import
// --ref.
func Resume(ctx context.Context, r *plumbing.Repo, opt ResumeOptions) (*ResumeResult, error) {
	ref, err := WritableRef(ctx, r, opt.Ref)
	if err != nil {
		return nil, err
	}
	h, err := readHead(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	if !h.exists() {
		return nil, fmt.Errorf("ref %s: %w", ref, refs.ErrNotFound)
	}
	res := &ResumeResult{Ref: ref, PreviousStatus: h.status, Continue: "tine record --ref " + ref + " -- CMD ARGS..."}
	for _, t := range h.tips {
		res.Tips = append(res.Tips, t.String())
	}
	if h.status == StatusRunning {
		res.Run, res.AlreadyRunning = h.id().String(), true
		return res, nil
	}
	// The run's payload with status running, spliced from its body.
	run, err := h.body.Append(nil, []objects.Member{{Key: "status", Value: objects.String(StatusRunning)}}, legacyFields)
	if err != nil {
		return nil, fmt.Errorf("build resumed run of %s: %w", h.id(), err)
	}
	if err := commitAppend(ctx, r, h, opt.Actor, []*objects.Object{run}); err != nil {
		return nil, err
	}
	res.Run, res.Previous = run.ID.String(), h.id().String()
	return res, nil
}
