package runs

import (
	"context"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// indexAppend is the writers' eager update of the history index after an
// append moved a ref from prev's run to run (prev nil for a new ref): the
// new run is indexed as prev's run plus the events the append wrote, in
// O(those events). prev's and run's event lists are compared as bytes
// from the bodies the writer already holds (split, not parsed; no oid is
// spelt out but the new ones), and the new events' summaries come from
// objs, the objects just written. When prev's run is not indexed, or the lists
// do not line up, the run is indexed as a reader would (indexedRun), but
// not in a shallow repository.
// Errors are dropped: the index is derived, and a reader finds the run
// missing and indexes it then.
func indexAppend(ctx context.Context, r *plumbing.Repo, prev *objects.Object, prevBody *objects.RunBody, run *objects.Object, objs []*objects.Object) {
	h := useHistory(r)
	if h == nil {
		return
	}
	defer h.Close()
	if hr, err := h.Run(run.ID); err != nil || hr != nil {
		return
	}
	add, ok := appendedRun(ctx, r.Objects(), h, prev, prevBody, run, objs)
	if ok && h.Add([]index.HistoryAdd{add}) == nil {
		return
	}
	// In a shallow repository prev is not indexed because it has events
	// beyond the boundary, and so has run: reading run whole to find
	// that out again would cost every append the run's length.
	if sh, err := r.Refs().ReadShallow(); err != nil || len(sh) > 0 {
		return
	}
	_, _ = indexedRun(ctx, r.Objects(), h, run.ID)
}

// appendedRun builds the index entry of run from prev's (indexed) entry
// and the new events: from objs when the write holds them, else read
// through g (record writes its event before the run); ok is false when it
// cannot; pb is prev's body split, or nil to split it here. Neither body
// is parsed (an append's run is spliced, its head
// read unparsed): both are split (objects.SplitRunBody), the lists
// compared as bytes, and only the new oids spelt out.
func appendedRun(ctx context.Context, g objects.Getter, h *index.History, prev *objects.Object, pb *objects.RunBody, run *objects.Object, objs []*objects.Object) (index.HistoryAdd, bool) {
	rb, err := objects.SplitRunBody(run.ID.Algo, run.Body)
	if err != nil {
		return index.HistoryAdd{}, false
	}
	add := index.HistoryAdd{Run: run.ID, Status: StatusRunning}
	if s, ok := rb.Get("status"); ok && s.Kind == objects.KindString {
		add.Status = s.Str
	}
	if add.Tips, err = oidList(rb, "tips"); err != nil {
		return add, false
	}
	if prev != nil {
		if pb == nil { // the head the append read split it already
			if pb, err = objects.SplitRunBody(prev.ID.Algo, prev.Body); err != nil {
				return add, false
			}
		}
		if !rb.Extends(pb) {
			return add, false
		}
		base, err := h.Run(prev.ID)
		if err != nil || base == nil || base.Len != pb.Len() {
			return add, false
		}
		add.Base, add.Prefix = prev.ID, pb.Len()
	}
	written := make(map[objects.OID]*objects.Object, len(objs))
	for _, o := range objs {
		written[o.ID] = o
	}
	for i := add.Prefix; i < rb.Len(); i++ {
		id := rb.Event(i)
		var e *Event
		if o := written[id]; o != nil {
			e, err = DecodeEvent(o)
		} else {
			e, err = loadEvent(ctx, g, run.ID, id)
		}
		if err != nil || e.Missing {
			return add, false
		}
		add.Own = append(add.Own, historyEvent(e))
	}
	return add, true
}
