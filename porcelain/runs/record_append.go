package runs

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// maxAppendAttempts bounds the compare-and-swap attempts of appendRecorded.
// Each lost attempt means another writer's append won, so a bound this
// large is reached only by a ref held by a stuck writer (the waits between
// attempts on a held guard add up to about ten seconds) or one rewritten
// without pause.
const maxAppendAttempts = 100

// maxLockedBackoff caps the wait before retrying a held guard.
const maxLockedBackoff = 100 * time.Millisecond

// appendRecorded appends the finished event ev to whatever the run at ref
// has become since before was read, without ever re-running anything:
// each attempt re-reads the ref, builds the run as its current events plus
// ev, with tips its current tips minus ev's parents (the tips record saw
// before running) plus ev, writes the blobs, the event and the run
// together (one storage pack where appends write packs: one round of
// fsyncs; content addressed, so a later attempt skips the blobs and the
// event an earlier one stored, valid whatever the run becomes), and moves
// the ref by compare-and-swap. Concurrent records thus show as
// several tips. A lost compare-and-swap or a held guard is retried, a
// bounded number of times; a run that stopped running, was deleted or
// rewritten without ev's parents is an error.
//
// A non-zero code is the blob of the command's code state (one of blobs),
// which the new run's manifests name (codeManifests).
func appendRecorded(ctx context.Context, r *plumbing.Repo, before *head, ev *objects.Object, blobs []*objects.Object, code objects.OID, status string, now time.Time, actor string) (*AppendResult, error) {
	de, err := DecodeEvent(ev)
	if err != nil {
		return nil, err
	}
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		h, err := currentHead(ctx, r, before)
		if err != nil {
			return nil, err
		}
		if h.holds(ev.ID) {
			// An earlier attempt committed and then reported an error.
			return &AppendResult{Ref: h.ref, Run: h.id().String(), Event: ev.ID.String()}, nil
		}
		if err := h.acceptsRecorded(before, de); err != nil {
			return nil, err
		}
		var extra []objects.Member
		if !code.IsZero() {
			extra = append(extra, codeManifests(h.member("manifests"), code))
		}
		run, err := h.appendedRun(r.Algo(), []*Event{de}, status, now, extra...)
		if err != nil {
			return nil, err
		}
		err = commitAppend(ctx, r, h, actor, append(append(slices.Clone(blobs), ev), run))
		if err == nil {
			res := &AppendResult{Ref: h.ref, Run: run.ID.String(), Event: ev.ID.String(), Created: !h.exists()}
			if h.exists() {
				res.Previous = h.id().String()
			}
			return res, nil
		}
		locked := errors.Is(err, refs.ErrLocked)
		if attempt >= maxAppendAttempts || !(locked || errors.Is(err, refs.ErrStale)) {
			return nil, fmt.Errorf("after %d attempts: %w", attempt, err)
		}
		if locked {
			if err := SleepContext(ctx, backoff/2+rand.N(backoff/2+1)); err != nil {
				return nil, err
			}
			backoff = min(2*backoff, maxLockedBackoff)
		}
	}
}

// currentHead is the ref's head now: before itself when the ref still
// names before's run (read and checked already; only the ref file is read
// again), else readHead's.
func currentHead(ctx context.Context, r *plumbing.Repo, before *head) (*head, error) {
	id, err := r.Refs().Read(ctx, before.ref)
	switch {
	case errors.Is(err, refs.ErrNotFound) && !before.exists():
		return before, nil
	case err == nil && before.exists() && id == before.id():
		return before, nil
	}
	return readHead(ctx, r, before.ref)
}

// acceptsRecorded refuses to append de to h's run when the run changed in
// a way the event cannot follow: it stopped running, it was deleted after
// record read it, or it no longer holds de's parents.
func (h *head) acceptsRecorded(before *head, de *Event) error {
	if !h.exists() {
		if before.exists() {
			return fmt.Errorf("ref %s was deleted while the command ran", h.ref)
		}
		return nil
	}
	if h.status != StatusRunning {
		return fmt.Errorf("run %s at %s became %s while the command ran: %w; run tine resume %s first", h.id(), h.ref, h.status, ErrNotRunning, h.ref)
	}
	for _, p := range de.Parents {
		if !h.holds(p) {
			return fmt.Errorf("run %s at %s no longer holds event %s, the tip the command was recorded after: %w", h.id(), h.ref, p, ErrEventNotInRun)
		}
	}
	return nil
}

// SleepContext waits d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
