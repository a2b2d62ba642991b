package runs

import (
	"context"
	"encoding/hex"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// diffIndexed is diffRevisions answered from the history index: the
// shared prefix comes from the runs' chains of bases, only the events
// past it are listed and compared, only the divergent ones are read (and
// verified) through g, and the totals and scores come from the index's
// cumulative sums. ok is false when the index cannot answer; the caller
// then reads the run objects. The result is the one Diff returns.
func diffIndexed(ctx context.Context, r *plumbing.Repo, g objects.Getter, revA, revB string, opt DiffOptions) (*DiffResult, bool, error) {
	h := useHistory(r)
	if h == nil {
		return nil, false, nil
	}
	defer h.Close()
	a, refA, ok := indexedRev(ctx, r, g, h, revA)
	if !ok {
		return nil, false, nil
	}
	b, refB, ok := indexedRev(ctx, r, g, h, revB)
	if !ok {
		return nil, false, nil
	}
	// b's indexing may have rewritten the chain; look a up again.
	a, err := h.Run(a.ID)
	if err != nil || a == nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	res, ok, err := diffFromIndex(ctx, r, g, h, a, b, opt)
	if !ok || err != nil {
		return nil, ok, err
	}
	res.A.Revision, res.A.Ref = revA, refA
	res.B.Revision, res.B.Ref = revB, refB
	return res, true, nil
}

// tailOf lists the event oids and tool-path steps of positions [from,
// Len) of run.
func tailOf(h *index.History, run *index.HistoryRun, from int) ([]objects.OID, []string, error) {
	ids, steps := make([]objects.OID, 0, run.Len-from), make([]string, 0, run.Len-from)
	err := h.Each(run, from, run.Len, func(_ int, id objects.OID, step string) error {
		ids, steps = append(ids, id), append(steps, step)
		return nil
	})
	return ids, steps, err
}

// agreeing returns how many positions from p on runs a and b hold the
// same events. Past the prefix their chains of bases share they may still
// agree position by position: two imports of the same events, or runs
// indexed whole before the run they extend (a rebuild indexes refs in
// name order). The positions are compared a chunk at a time, in reused
// buffers from a small first chunk, so a fork found by its bases costs a
// few reads and an agreement found this way costs index reads, not
// memory.
func agreeing(h *index.History, a, b *index.HistoryRun, p int) (int, error) {
	limit := min(a.Len, b.Len)
	var bufA, bufB []objects.OID
	n, chunk := 0, 16
	for from := p; from < limit; from, chunk = from+chunk, min(4*chunk, 1024) {
		to := min(from+chunk, limit)
		var err error
		if bufA, err = oidsInto(h, a, from, to, bufA[:0]); err != nil {
			return 0, err
		}
		if bufB, err = oidsInto(h, b, from, to, bufB[:0]); err != nil {
			return 0, err
		}
		for k := range bufA {
			if bufA[k] != bufB[k] {
				return n, nil
			}
			n++
		}
	}
	return n, nil
}

// oidsInto appends the event oids of positions [from, to) of run to buf.
func oidsInto(h *index.History, run *index.HistoryRun, from, to int, buf []objects.OID) ([]objects.OID, error) {
	err := h.Each(run, from, to, func(_ int, id objects.OID, _ string) error {
		buf = append(buf, id)
		return nil
	})
	return buf, err
}

// stepsOf lists the tool-path steps of positions [0, n) of run.
func stepsOf(h *index.History, run *index.HistoryRun, n int) ([]string, error) {
	out := make([]string, 0, n)
	err := h.Each(run, 0, n, func(_ int, _ objects.OID, step string) error {
		out = append(out, step)
		return nil
	})
	return out, err
}

// diffFromIndex is Diff over two indexed runs. Run lists hold no
// duplicates (a link rule), so an event past the shared prefix of one run
// cannot be in the other's prefix: the common events are the prefix and
// the events both tails hold. The prefix holds the same events at the
// same positions in both runs, so its tool-path steps are the same too:
// the tool paths are compared, and shown, from the tails; only --json's
// whole lists (without opt.Brief) read the prefix, one pass per list.
func diffFromIndex(ctx context.Context, r *plumbing.Repo, g objects.Getter, h *index.History, a, b *index.HistoryRun, opt DiffOptions) (*DiffResult, bool, error) {
	p, err := h.SharedPrefix(a, b)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	n, err := agreeing(h, a, b, p)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	p += n
	tailA, stepsA, err := tailOf(h, a, p)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	tailB, stepsB, err := tailOf(h, b, p)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	res := &DiffResult{OnlyA: []EventBrief{}, OnlyB: []EventBrief{}, Aligned: []AlignedPair{}, CommonCount: p}
	if err := commonPrefix(h, a, p, res, !opt.Brief); err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	divA, divB := splitDivergent(res, tailA, tailB, p, !opt.Brief)
	evA, ok, err := divergentIndexed(ctx, g, a.ID, tailA, p, divA)
	if !ok || err != nil {
		return nil, ok, err
	}
	evB, ok, err := divergentIndexed(ctx, g, b.ID, tailB, p, divB)
	if !ok || err != nil {
		return nil, ok, err
	}
	for k, i := range divA {
		res.OnlyA = append(res.OnlyA, briefEvent(evA[k], i))
	}
	for k, i := range divB {
		res.OnlyB = append(res.OnlyB, briefEvent(evB[k], i))
	}
	if res.A, err = sideFromIndex(h, a, !opt.Brief); err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	if res.B, err = sideFromIndex(h, b, !opt.Brief); err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	res.ToolPaths, err = newToolPathView(stepsA, stepsB, p, func() ([]string, error) { return stepsOf(h, a, p) })
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	res, err = finishDiff(ctx, g, res, divA, divB, evA, evB, opt)
	return res, true, err
}

// commonPrefix records in res the first p events of run, which both runs
// hold: their oids when list is set, else only the newest of them (the
// common ancestor, unless the tails share a later one).
func commonPrefix(h *index.History, run *index.HistoryRun, p int, res *DiffResult, list bool) error {
	if list {
		var err error
		if res.Common, err = oidStrings(h, run, p); err != nil {
			return err
		}
		if p > 0 {
			res.CommonAncestor = res.Common[p-1]
		}
		return nil
	}
	if p > 0 {
		id, err := h.EventAt(run, p-1)
		if err != nil {
			return err
		}
		res.CommonAncestor = id.String()
	}
	return nil
}

// divergentIndexed reads the events at positions div (of a run whose
// events from position p are tail). An event that is no longer stored
// makes the index unable to answer: its summary there predates the loss.
func divergentIndexed(ctx context.Context, g objects.Getter, run objects.OID, tail []objects.OID, p int, div []int) ([]*Event, bool, error) {
	out := make([]*Event, len(div))
	for k, i := range div {
		e, err := loadEvent(ctx, g, run, tail[i-p])
		if err != nil {
			return nil, true, err
		}
		if e.Missing {
			return nil, false, nil
		}
		out[k] = e
	}
	return out, true, nil
}

// sideFromIndex is diffSide from the index: totals and score from the
// run's cumulative sums, the whole tool path from its events' steps when
// path is set.
func sideFromIndex(h *index.History, run *index.HistoryRun, path bool) (DiffSide, error) {
	sums, err := h.Sums(run)
	if err != nil {
		return DiffSide{}, err
	}
	s := DiffSide{Run: run.ID.String(), Stored: true,
		Totals: Totals{Events: run.Len, Cost: sums.Cost, Duration: sums.Duration, Tokens: sums.Tokens}}
	if sums.HasScore {
		v := sums.Score
		s.Score = &v
	}
	if !path {
		return s, nil
	}
	s.ToolPath = make([]string, 0, run.Len)
	err = h.Each(run, 0, run.Len, func(_ int, _ objects.OID, step string) error {
		s.ToolPath = append(s.ToolPath, step)
		return nil
	})
	return s, err
}

// oidStrings spells the first p event oids of run, as one string sliced p
// ways: the shared prefix of a long run is tens of thousands of oids, and
// one allocation instead of one each is most of diff's own work.
func oidStrings(h *index.History, run *index.HistoryRun, p int) ([]string, error) {
	out := make([]string, 0, p)
	buf := make([]byte, 0, p*(len("event:")+len(run.ID.Algo)+1+64))
	ends := make([]int, 0, p)
	err := h.Each(run, 0, p, func(_ int, id objects.OID, _ string) error {
		buf = append(buf, id.Type...)
		buf = append(buf, ':')
		buf = append(buf, id.Algo...)
		buf = append(buf, ':')
		buf = hex.AppendEncode(buf, id.Digest[:])
		ends = append(ends, len(buf))
		return nil
	})
	all, start := string(buf), 0
	for _, end := range ends {
		out = append(out, all[start:end])
		start = end
	}
	return out, err
}
