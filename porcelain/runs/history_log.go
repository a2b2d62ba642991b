package runs

import (
	"context"
	"errors"
	"strings"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// indexedHead opens the history index and resolves rev in it with
// indexedRev; h is to be closed when ok.
func indexedHead(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string) (h *index.History, hr *index.HistoryRun, ref string, ok bool) {
	if strings.ContainsRune(rev, '~') {
		return nil, nil, "", false
	}
	if h = useHistory(r); h == nil {
		return nil, nil, "", false
	}
	if hr, ref, ok = indexedRev(ctx, r, g, h, rev); !ok {
		h.Close()
	}
	return h, hr, ref, ok
}

// indexedRev resolves rev to a stored run the history index h holds,
// indexing it when it is missing (and from then on never reading the run
// object again). ok is false when the index cannot answer (REV~N, a
// revision that does not name a run, a run with events not stored here,
// an index that cannot be read or written): the caller then takes the
// path that reads the run object, which also reports rev's errors.
func indexedRev(ctx context.Context, r *plumbing.Repo, g objects.Getter, h *index.History, rev string) (*index.HistoryRun, string, bool) {
	if strings.ContainsRune(rev, '~') || noHistoryIndex {
		return nil, "", false
	}
	id, ref, err := r.ResolveRevision(ctx, rev)
	if err != nil || id.Type != objects.TypeRun {
		return nil, "", false
	}
	// The index is trusted for a run's event list only while the run is
	// stored: a pruned run is not shown from its index entry. A ref never
	// names a missing object (refs checks its target before moving), so
	// only a run named by oid is checked (a pack proves an object it is
	// asked about by reading it: the cost the index saves).
	if ref == "" {
		if has, err := r.Objects().Has(ctx, id); err != nil || !has {
			return nil, "", false
		}
	}
	hr, err := indexedRun(ctx, g, h, id)
	if err != nil {
		historyFailed(r, err)
		return nil, "", false
	}
	return hr, ref, true
}

// historyFailed answers an error the history index gave while in use:
// a damaged index is reset (emptied), so the next reader or writer
// refills it; either way the caller answers from the objects.
func historyFailed(r *plumbing.Repo, err error) {
	if errors.Is(err, index.ErrHistoryCorrupt) {
		_ = index.ResetHistory(r.Root(), r.Algo())
	}
}

// noHistoryIndex turns the index off, for tests comparing the two paths.
var noHistoryIndex = false

// logRunIndexed is logRun answered from the history index: the run's
// status, count, tips and newest event oids come from the index; the
// events shown are read (and verified) through g as logRun reads them.
func logRunIndexed(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string, limit int) (*LogResult, []GraphNode, bool, error) {
	h, hr, ref, ok := indexedHead(ctx, r, g, rev)
	if !ok {
		return nil, nil, false, nil
	}
	defer h.Close()
	// As in logRun: a ref that has moved on does not decorate the run.
	if cur, err := r.Refs().Read(ctx, ref); ref != "" && (err != nil || cur != hr.ID) {
		ref = ""
	}
	ids, err := h.Newest(hr, limit)
	if err != nil {
		historyFailed(r, err)
		return nil, nil, false, nil
	}
	res := &LogResult{Runs: []LogRun{{Ref: ref, Run: hr.ID.String(), Status: hr.Status, Events: hr.Len}}, Entries: []LogEntry{}}
	deco := map[objects.OID][]string{}
	if ref != "" {
		for _, t := range hr.Tips {
			deco[t] = append(deco[t], ref)
		}
	}
	nodes := make([]GraphNode, 0, len(ids))
	for _, id := range ids {
		e, err := loadEvent(ctx, g, hr.ID, id)
		if err != nil {
			return nil, nil, true, err
		}
		res.Entries = append(res.Entries, detached(logEntry(e, deco[e.ID])))
		nodes = append(nodes, GraphNode{ID: e.ID, Parents: e.Parents})
	}
	return res, nodes, true, nil
}
