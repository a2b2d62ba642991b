package runs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// The history index (package index, history*.go) from the verbs' side:
// what it keeps of each event (the diff's tool-path step and meters), how
// a run is indexed in O(its new events), and the repairs a reader makes.

// errNotIndexable marks a run the index does not hold: one with an event
// not stored here (a shallow boundary), whose summary a later fetch would
// change. Readers answer it from the objects.
var errNotIndexable = errors.New("run has events not stored here")

// openHistory opens r's history index; a damaged one is reset (emptied,
// to be refilled as runs are read) and opened again.
func openHistory(r *plumbing.Repo) (*index.History, error) {
	h, err := index.OpenHistory(r.Root(), r.Algo())
	if errors.Is(err, index.ErrHistoryCorrupt) {
		if err := index.ResetHistory(r.Root(), r.Algo()); err != nil {
			return nil, err
		}
		h, err = index.OpenHistory(r.Root(), r.Algo())
	}
	return h, err
}

// useHistory is the history index to answer from, nil when it is turned
// off (noHistoryIndex) or cannot be opened: the index is derived, and
// every caller then takes the path that reads the run objects.
func useHistory(r *plumbing.Repo) *index.History {
	if noHistoryIndex {
		return nil
	}
	h, err := openHistory(r)
	if err != nil {
		return nil
	}
	return h
}

// historyEvent is what the index keeps of event e.
func historyEvent(e *Event) index.HistoryEvent {
	he := index.HistoryEvent{ID: e.ID, Step: toolStep(e), Cost: e.Cost, Duration: e.Duration, Tokens: e.Tokens()}
	if e.Score != nil {
		he.Score, he.HasScore = *e.Score, true
	}
	return he
}

// indexedRun returns run id from h, indexing it first when it is not
// there: the run object is read (verified) and compared with the indexed
// runs it may extend — the run it was forked from, and any run ending
// with one of its events (the run an append moved its ref from) — and
// only the events past the longest shared prefix are read.
func indexedRun(ctx context.Context, g objects.Getter, h *index.History, id objects.OID) (*index.HistoryRun, error) {
	return indexedRunDepth(ctx, g, h, id, 0)
}

// maxForkIndexDepth bounds how many forked-from runs indexing one run
// indexes first.
const maxForkIndexDepth = 4

// indexedRunDepth is indexedRun, which indexes the run a fork was forked
// from first (depth levels up already), so the fork shares its events.
func indexedRunDepth(ctx context.Context, g objects.Getter, h *index.History, id objects.OID, depth int) (*index.HistoryRun, error) {
	if hr, err := h.Run(id); err != nil || hr != nil {
		return hr, err
	}
	run, err := readRun(ctx, g, id)
	if err != nil {
		return nil, err
	}
	ids, err := oidList(run.Value, "events")
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	if ff := run.ForkedFrom; ff != nil && ff.Run.Type == objects.TypeRun && depth < maxForkIndexDepth {
		// Best effort: a source not stored or not indexable leaves the
		// fork to be indexed on its own.
		_, _ = indexedRunDepth(ctx, g, h, ff.Run, depth+1)
	}
	add := index.HistoryAdd{Run: id, Status: run.Status, Tips: run.Tips}
	add.Base, add.Prefix, err = historyBase(h, run, ids)
	if err != nil {
		return nil, err
	}
	for _, eid := range ids[add.Prefix:] {
		e, err := loadEvent(ctx, g, id, eid)
		if err != nil {
			return nil, err
		}
		if e.Missing {
			return nil, fmt.Errorf("run %s: event %s: %w", id, eid, errNotIndexable)
		}
		add.Own = append(add.Own, historyEvent(e))
	}
	if err := h.Add([]index.HistoryAdd{add}); err != nil {
		return nil, err
	}
	hr, err := h.Run(id)
	if err == nil && hr == nil {
		err = fmt.Errorf("run %s: not in the history index after adding it: %w", id, index.ErrHistoryCorrupt)
	}
	return hr, err
}

// historyBase picks the indexed run sharing the longest prefix with ids:
// the run forked from, or a run whose last event is one of ids (probed
// from the newest, so an append's predecessor is found after probing
// only the appended events).
func historyBase(h *index.History, run *Run, ids []objects.OID) (objects.OID, int, error) {
	var best objects.OID
	bestK := 0
	try := func(c objects.OID) error {
		hr, err := h.Run(c)
		if err != nil || hr == nil || c == run.ID {
			return err
		}
		k, err := sharedWith(h, hr, ids)
		if err == nil && k > bestK {
			best, bestK = c, k
		}
		return err
	}
	if ff := run.ForkedFrom; ff != nil {
		if err := try(ff.Run); err != nil {
			return best, bestK, err
		}
	}
	for j := len(ids) - 1; j >= bestK; j-- {
		for _, c := range h.RunsEndingWith(ids[j]) {
			if err := try(c); err != nil {
				return best, bestK, err
			}
		}
		if bestK == j+1 {
			break
		}
	}
	return best, bestK, nil
}

// sharedWith returns how many first events of ids indexed run hr holds
// in the same positions.
func sharedWith(h *index.History, hr *index.HistoryRun, ids []objects.OID) (int, error) {
	k := 0
	stop := errors.New("stop")
	err := h.Each(hr, 0, min(hr.Len, len(ids)), func(i int, id objects.OID, _ string) error {
		if ids[i] != id {
			return stop
		}
		k = i + 1
		return nil
	})
	if errors.Is(err, stop) {
		err = nil
	}
	return k, err
}

// HistoryReport says what UpdateHistory or RebuildHistory did and what
// the history index holds after it.
type HistoryReport struct {
	// Path is the index's directory, relative to the repository's.
	Path string `json:"path"`
	// Action is "updated", "fresh" (nothing to add) or "rebuilt".
	Action string `json:"action"`
	// Added counts the runs indexed now (a fork's source with it);
	// Skipped the ref'd runs left to the objects (events not stored
	// here).
	Added   int `json:"added"`
	Skipped int `json:"skipped"`
	// Layers, Runs and Events describe the index: its layer files, the
	// runs it holds and the events they hold as their own.
	Layers int `json:"layers"`
	Runs   int `json:"runs"`
	Events int `json:"events"`
}

// UpdateHistory indexes the run of every ref that names one and is not
// indexed yet, each in O(its new events): what a writer calls after
// moving refs (through RefreshIndex), and `tine index update`. Runs with
// events not stored here are skipped (readers answer them from the
// objects). A damaged index is reset first (openHistory).
func UpdateHistory(ctx context.Context, r *plumbing.Repo) (*HistoryReport, error) {
	return updateHistory(ctx, r, r.Objects())
}

// updateHistory is UpdateHistory reading objects through g.
func updateHistory(ctx context.Context, r *plumbing.Repo, g objects.Getter) (*HistoryReport, error) {
	h, err := openHistory(r)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	rep := &HistoryReport{Path: index.HistoryDir, Action: "fresh"}
	_, before, _ := h.Layers()
	targets, err := refRuns(ctx, r)
	if err != nil {
		return nil, err
	}
	targets, err = unindexedShortestFirst(ctx, g, h, targets)
	if err != nil {
		return nil, err
	}
	for _, id := range targets {
		if hr, err := h.Run(id); err != nil || hr != nil {
			if err != nil {
				return nil, err
			}
			continue // indexed meanwhile, as a fork's source
		}
		_, err := indexedRun(ctx, g, h, id)
		switch {
		case errors.Is(err, errNotIndexable), errors.Is(err, objects.ErrNotFound), errors.Is(err, plumbing.ErrObjectMissing):
			// Left to the objects: a reader of the run then shows the
			// boundary, or reports the damage (fsck lists it too).
			rep.Skipped++
			continue
		case err != nil:
			historyFailed(r, err)
			return nil, err
		}
		rep.Action = "updated"
	}
	rep.Layers, rep.Runs, rep.Events = h.Layers()
	// Indexing a fork indexes the run it was forked from too.
	rep.Added = rep.Runs - before
	return rep, nil
}

// unindexedShortestFirst returns the runs of targets h does not hold,
// those with the fewest events first (ref order among equals). A run
// that extends another (an append's successor, a copy carried on) lists
// more events, so it is indexed after the run it extends and reads only
// the events past it; met first in ref order (heads/main before the
// remotes/ or tags/ ref still at its predecessor), it was indexed whole
// and the shorter run then found no indexed run ending inside it and was
// read whole again. Counting a run's events scans its body's bytes; a
// run that cannot be read or split goes last, for indexedRun to report.
func unindexedShortestFirst(ctx context.Context, g objects.Getter, h *index.History, targets []objects.OID) ([]objects.OID, error) {
	type pending struct {
		id objects.OID
		n  int
	}
	var out []pending
	for _, id := range targets {
		hr, err := h.Run(id)
		if err != nil {
			return nil, err
		}
		if hr != nil {
			continue
		}
		n := math.MaxInt
		if o, err := objects.GetUnparsed(ctx, g, id); err == nil {
			if rb, err := objects.SplitRunBody(id.Algo, o.Body); err == nil {
				n = rb.Len()
			}
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, pending{id, n})
	}
	slices.SortStableFunc(out, func(a, b pending) int { return cmp.Compare(a.n, b.n) })
	ids := make([]objects.OID, len(out))
	for i, p := range out {
		ids[i] = p.id
	}
	return ids, nil
}

// RebuildHistory empties the history index and indexes every ref's run
// again from the objects (`tine index rebuild`).
func RebuildHistory(ctx context.Context, r *plumbing.Repo) (*HistoryReport, error) {
	if err := index.ResetHistory(r.Root(), r.Algo()); err != nil {
		return nil, err
	}
	rep, err := UpdateHistory(ctx, r)
	if err == nil {
		rep.Action = "rebuilt"
	}
	return rep, err
}

// refRuns lists the distinct runs refs name, in ref order.
func refRuns(ctx context.Context, r *plumbing.Repo) ([]objects.OID, error) {
	var out []objects.OID
	seen := map[objects.OID]bool{}
	err := r.Refs().List(ctx, "", func(_ string, id objects.OID) error {
		if id.Type == objects.TypeRun && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
		return nil
	})
	return out, err
}
