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
	if noHistoryIndex {
		return nil, false, nil
	}
	h, err := openHistory(r)
	if err != nil {
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
	if a, err = h.Run(a.ID); err != nil || a == nil {
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

// tailOf lists positions [from, Len) of run.
func tailOf(h *index.History, run *index.HistoryRun, from int) ([]objects.OID, error) {
	out := make([]objects.OID, 0, run.Len-from)
	err := h.Each(run, from, run.Len, func(_ int, id objects.OID, _ string) error {
		out = append(out, id)
		return nil
	})
	return out, err
}

// diffFromIndex is Diff over two indexed runs. Run lists hold no
// duplicates (a link rule), so an event past the shared prefix of one run
// cannot be in the other's prefix: the common events are the prefix and
// the events both tails hold.
func diffFromIndex(ctx context.Context, r *plumbing.Repo, g objects.Getter, h *index.History, a, b *index.HistoryRun, opt DiffOptions) (*DiffResult, bool, error) {
	p, err := h.SharedPrefix(a, b)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	tailA, err := tailOf(h, a, p)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	tailB, err := tailOf(h, b, p)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	// Events past the structural prefix may still agree position by
	// position (two imports of the same events).
	n := 0
	for n < len(tailA) && n < len(tailB) && tailA[n] == tailB[n] {
		n++
	}
	p, tailA, tailB = p+n, tailA[n:], tailB[n:]
	res := &DiffResult{OnlyA: []EventBrief{}, OnlyB: []EventBrief{}, Aligned: []AlignedPair{}}
	if res.Common, err = oidStrings(h, a, p); err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	if p > 0 {
		res.CommonAncestor = res.Common[p-1]
	}
	divA, divB := splitDivergent(res, tailA, tailB, p)
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
	if res.A, err = sideFromIndex(h, a); err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	if res.B, err = sideFromIndex(h, b); err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	res, err = finishDiff(ctx, g, res, divA, divB, evA, evB, opt)
	return res, true, err
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
// run's cumulative sums, the tool path from its events' steps.
func sideFromIndex(h *index.History, run *index.HistoryRun) (DiffSide, error) {
	sums, err := h.Sums(run)
	if err != nil {
		return DiffSide{}, err
	}
	s := DiffSide{Run: run.ID.String(), Stored: true, ToolPath: make([]string, 0, run.Len),
		Totals: Totals{Events: run.Len, Cost: sums.Cost, Duration: sums.Duration, Tokens: sums.Tokens}}
	if sums.HasScore {
		v := sums.Score
		s.Score = &v
	}
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
