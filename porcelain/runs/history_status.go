package runs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// HistoryStatus is what `tine index status` says of the history index.
type HistoryStatus struct {
	Path string `json:"path"`
	// State is "fresh" (every ref's run indexed), "stale" (some are not
	// yet: the next reader or writer adds them), "missing" or "corrupt".
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Layers int    `json:"layers"`
	Runs   int    `json:"runs"`
	Events int    `json:"events"`
	Bytes  int64  `json:"bytes"`
	// Unindexed counts the ref'd runs the index lacks.
	Unindexed int `json:"unindexed"`
	// Verified is set when every indexed ref'd run was checked against
	// its run object and events; Mismatches lists what differed.
	Verified   bool     `json:"verified,omitempty"`
	Mismatches []string `json:"mismatches,omitempty"`
}

// StatusHistory reports the history index's state without writing. With
// verify, every ref'd run the index holds is checked against the objects:
// its event list, status and tips against the run object, and its tool
// path, totals and score against its events read and summed again.
func StatusHistory(ctx context.Context, r *plumbing.Repo, verify bool) (*HistoryStatus, error) {
	st := &HistoryStatus{Path: index.HistoryDir}
	dir := filepath.Join(r.Root(), filepath.FromSlash(index.HistoryDir))
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
				st.Bytes += fi.Size()
			}
		}
	}
	h, err := index.OpenHistory(r.Root(), r.Algo())
	switch {
	case errors.Is(err, index.ErrHistoryCorrupt), errors.Is(err, index.ErrUnsafePath):
		st.State, st.Reason = "corrupt", err.Error()
		return st, nil
	case err != nil:
		return nil, err
	}
	defer h.Close()
	st.Layers, st.Runs, st.Events = h.Layers()
	ids, err := refRuns(ctx, r)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		hr, err := h.Run(id)
		if err != nil {
			st.State, st.Reason = "corrupt", err.Error()
			return st, nil
		}
		if hr == nil {
			st.Unindexed++
			continue
		}
		if verify {
			if msg, err := verifyIndexedRun(ctx, r.Objects(), h, hr); err != nil {
				return nil, err
			} else if msg != "" {
				st.Mismatches = append(st.Mismatches, msg)
			}
		}
	}
	st.Verified = verify
	switch {
	case len(st.Mismatches) > 0:
		st.State, st.Reason = "corrupt", fmt.Sprintf("%d runs differ from their objects", len(st.Mismatches))
	case st.Runs == 0 && len(ids) > 0:
		st.State = "missing"
	case st.Unindexed > 0:
		st.State, st.Reason = "stale", fmt.Sprintf("%d ref'd runs not indexed", st.Unindexed)
	default:
		st.State = "fresh"
	}
	return st, nil
}

// verifyIndexedRun compares an indexed run with its objects and returns
// what differs ("" when nothing does).
func verifyIndexedRun(ctx context.Context, g objects.Getter, h *index.History, hr *index.HistoryRun) (string, error) {
	run, err := LoadRun(ctx, g, hr.ID)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", err
	}
	if err != nil {
		// A run object or event damaged or lost since it was indexed.
		return err.Error(), nil
	}
	if run.Status != hr.Status || len(run.Events) != hr.Len || fmt.Sprint(run.Tips) != fmt.Sprint(hr.Tips) {
		return fmt.Sprintf("run %s: status, tips or event count differ", hr.ID), nil
	}
	var want index.HistorySums
	for _, e := range run.Events {
		s := historyEvent(e)
		want.Cost += s.Cost
		want.Duration += s.Duration
		want.Tokens += s.Tokens
		if s.HasScore {
			want.Score, want.HasScore = s.Score, true
		}
	}
	if got, err := h.Sums(hr); err != nil || got != want {
		return fmt.Sprintf("run %s: totals or score differ", hr.ID), nil
	}
	bad := ""
	err = h.Each(hr, 0, hr.Len, func(i int, id objects.OID, step string) error {
		if e := run.Events[i]; e.ID != id || toolStep(e) != step {
			bad = fmt.Sprintf("run %s: event %d differs", hr.ID, i)
			return errStopWalk
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return fmt.Sprintf("run %s: %v", hr.ID, err), nil
	}
	return bad, nil
}

// errStopWalk ends a walk early.
var errStopWalk = errors.New("stop")
