package index

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Walking an indexed run's events. A run's list is its base's first
// Prefix events followed by its own, so position i is found by following
// bases down while i is below their prefix: a walk over the newest n
// events touches only the records that hold them.

// maxHistHops bounds a walk down a chain of bases, so a corrupt layer
// whose bases loop ends in ErrHistoryCorrupt.
const maxHistHops = 1 << 22

// histSeg is the part [lo, hi) of a run's positions that record r's own
// events hold.
type histSeg struct {
	r      histRec
	lo, hi int
}

// segments returns the records holding positions [from, to) of r, newest
// first, calling fn on each until it returns false.
func (h *History) segments(r histRec, from, to int, fn func(histSeg) (bool, error)) error {
	if from < 0 || to > r.prefix+r.own || from > to {
		return fmt.Errorf("positions [%d, %d) of a run of %d events: %w", from, to, r.prefix+r.own, ErrHistoryCorrupt)
	}
	hi := to
	for hop := 0; hi > from; hop++ {
		if hop > maxHistHops {
			return fmt.Errorf("base chain too deep: %w", ErrHistoryCorrupt)
		}
		if hi > r.prefix+r.own {
			return fmt.Errorf("base holds %d events, want %d: %w", r.prefix+r.own, hi, ErrHistoryCorrupt)
		}
		if lo := max(from, r.prefix); lo < hi {
			if more, err := fn(histSeg{r: r, lo: lo, hi: hi}); err != nil || !more {
				return err
			}
		}
		hi = min(hi, r.prefix)
		if hi <= from {
			break
		}
		b, ok, err := h.lookup(r.base)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("base run of %d events not indexed: %w", hi, ErrHistoryCorrupt)
		}
		r = b
	}
	return nil
}

// eventOID names own event j of r.
func (h *History) eventOID(r *histRec, j int) (objects.OID, error) {
	id := objects.OID{Type: objects.TypeEvent, Algo: h.algo}
	b, err := r.event(j)
	if err != nil {
		return id, err
	}
	copy(id.Digest[:], b[:32])
	return id, nil
}

// Newest returns the oids of run's newest n events (all when n is 0 or
// more than it holds), newest first.
func (h *History) Newest(run *HistoryRun, n int) ([]objects.OID, error) {
	if n <= 0 || n > run.Len {
		n = run.Len
	}
	out := make([]objects.OID, 0, n)
	err := h.segments(run.rec, run.Len-n, run.Len, func(s histSeg) (bool, error) {
		for i := s.hi - 1; i >= s.lo; i-- {
			id, err := h.eventOID(&s.r, i-s.r.prefix)
			if err != nil {
				return false, err
			}
			out = append(out, id)
		}
		return true, nil
	})
	return out, err
}

// EventAt returns the oid at position i of run.
func (h *History) EventAt(run *HistoryRun, i int) (objects.OID, error) {
	var id objects.OID
	err := h.segments(run.rec, i, i+1, func(s histSeg) (bool, error) {
		var err error
		id, err = h.eventOID(&s.r, i-s.r.prefix)
		return false, err
	})
	return id, err
}

// Each calls fn on positions [from, to) of run in order, with each
// event's oid and tool-path step.
func (h *History) Each(run *HistoryRun, from, to int, fn func(i int, id objects.OID, step string) error) error {
	var segs []histSeg
	if err := h.segments(run.rec, from, to, func(s histSeg) (bool, error) {
		segs = append(segs, s)
		return true, nil
	}); err != nil {
		return err
	}
	for k := len(segs) - 1; k >= 0; k-- {
		s := segs[k]
		for i := s.lo; i < s.hi; i++ {
			b, err := s.r.event(i - s.r.prefix)
			if err != nil {
				return err
			}
			step, err := s.r.layer.step(leUint32(b[32:]))
			if err != nil {
				return err
			}
			id := objects.OID{Type: objects.TypeEvent, Algo: h.algo}
			copy(id.Digest[:], b[:32])
			if err := fn(i, id, step); err != nil {
				return err
			}
		}
	}
	return nil
}

// HistorySums are a run's totals over its events in order, as the
// history verbs sum them, and its score: that of its newest event with
// one.
type HistorySums struct {
	Cost, Duration, Tokens float64
	Score                  float64
	HasScore               bool
}

// Sums returns run's totals, read from its last event's record.
func (h *History) Sums(run *HistoryRun) (HistorySums, error) {
	if run.Len == 0 {
		return HistorySums{}, nil
	}
	var e histEventData
	err := h.segments(run.rec, run.Len-1, run.Len, func(s histSeg) (bool, error) {
		b, err := s.r.event(s.hi - 1 - s.r.prefix)
		if err != nil {
			return false, err
		}
		e, err = decodeHistEvent(s.r.layer, b)
		return false, err
	})
	return HistorySums{Cost: e.cost, Duration: e.dur, Tokens: e.tok, Score: e.score, HasScore: e.hasScore}, err
}

// SharedPrefix returns a length p such that runs a and b agree on their
// first p events, found from their chains of bases alone: a run both
// chains pass through bounds p below by the shorter of the two prefixes
// they keep of it. Events past p may still agree; the caller compares.
func (h *History) SharedPrefix(a, b *HistoryRun) (int, error) {
	keep := map[[32]byte]int{}
	if err := h.chain(a.rec, a.Len, func(d [32]byte, limit int) { keep[d] = max(keep[d], limit) }); err != nil {
		return 0, err
	}
	p := 0
	err := h.chain(b.rec, b.Len, func(d [32]byte, limit int) {
		if la, ok := keep[d]; ok {
			p = max(p, min(la, limit))
		}
	})
	return p, err
}

// chain calls fn on r and each base below it with the number of its first
// events r's list keeps.
func (h *History) chain(r histRec, limit int, fn func(d [32]byte, limit int)) error {
	for hop := 0; ; hop++ {
		if hop > maxHistHops {
			return fmt.Errorf("base chain too deep: %w", ErrHistoryCorrupt)
		}
		fn(r.id, limit)
		limit = min(limit, r.prefix)
		if limit == 0 {
			return nil
		}
		b, ok, err := h.lookup(r.base)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("base run not indexed: %w", ErrHistoryCorrupt)
		}
		r = b
	}
}

// RunsEndingWith returns the indexed runs whose last event is ev (an
// append's predecessor ends where the append's own events begin).
func (h *History) RunsEndingWith(ev objects.OID) []objects.OID {
	var out []objects.OID
	for i := len(h.layers) - 1; i >= 0; i-- {
		for _, d := range h.layers[i].tailRuns(ev.Digest[:]) {
			out = append(out, objects.OID{Type: objects.TypeRun, Algo: h.algo, Digest: d})
		}
	}
	return out
}
