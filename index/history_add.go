package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/tinehq/tine/objects"
)

// HistoryEvent is what a writer tells the index about one event of a run:
// its tool-path step and its meters, as the history verbs compute them.
type HistoryEvent struct {
	ID                     objects.OID
	Step                   string
	Cost, Duration, Tokens float64
	Score                  float64
	HasScore               bool
}

// HistoryAdd is a run to index: its events are the first Prefix events of
// Base (zero when Prefix is 0) followed by Own.
type HistoryAdd struct {
	Run    objects.OID
	Base   objects.OID
	Prefix int
	Status string
	Tips   []objects.OID
	Own    []HistoryEvent
}

// Add indexes runs as one new layer, under the writers' lock, then merges
// layers while the newest is at least half the size of the one before
// (so the chain stays about log2 of the index's size and each event is
// rewritten O(log n) times), and replaces the chain. Runs already indexed
// are skipped. A base must be indexed or come earlier in adds.
func (h *History) Add(adds []HistoryAdd) error {
	fl, err := h.lock()
	if err != nil {
		return err
	}
	defer fl.Unlock()
	// Another writer may have replaced the chain since h was opened.
	if err := h.load(); err != nil {
		return err
	}
	batch := map[[32]byte]*histRunData{}
	var runs []histRunData
	for _, a := range adds {
		if _, ok, err := h.lookup(a.Run.Digest); err != nil || ok {
			if err != nil {
				return err
			}
			continue
		}
		if batch[a.Run.Digest] != nil {
			continue
		}
		d, err := h.runData(a, batch)
		if err != nil {
			return err
		}
		batch[a.Run.Digest] = d
		runs = append(runs, *d)
	}
	if len(runs) == 0 {
		return nil
	}
	names := append([][32]byte(nil), h.names...)
	layer := encodeHistLayer(string(h.algo), runs)
	sizes := make([]int, 0, len(names)+1)
	for _, l := range h.layers {
		sizes = append(sizes, len(l.data))
	}
	for len(sizes) > 0 && sizes[len(sizes)-1] < 2*len(layer) {
		// Merge the newest old layer into the new one.
		old, err := h.layerRuns(h.layers[len(sizes)-1])
		if err != nil {
			return err
		}
		runs = append(old, runs...)
		layer = encodeHistLayer(string(h.algo), dedupRuns(runs))
		sizes, names = sizes[:len(sizes)-1], names[:len(names)-1]
	}
	sum, err := writeLayer(h.dir, layer)
	if err != nil {
		return err
	}
	names = append(names, sum)
	if err := writeChain(h.dir, h.algo, names); err != nil {
		return err
	}
	// The chain is written: the add is done. A leftover the prune cannot
	// delete costs disk only, and every later add prunes again, so it
	// does not fail the add (ResetHistory, which promises an empty
	// directory, reports it).
	_ = h.prune(names)
	return h.load()
}

// dedupRuns keeps the first of runs with one id.
func dedupRuns(runs []histRunData) []histRunData {
	seen := map[[32]byte]bool{}
	out := runs[:0]
	for _, r := range runs {
		if !seen[r.id] {
			seen[r.id] = true
			out = append(out, r)
		}
	}
	return out
}

// runData computes a new run's record: its depth and its own events'
// cumulative sums, continuing its base's at Prefix.
func (h *History) runData(a HistoryAdd, batch map[[32]byte]*histRunData) (*histRunData, error) {
	if a.Prefix < 0 || a.Prefix > MaxHistoryEvents || len(a.Own) > MaxHistoryEvents-a.Prefix {
		return nil, fmt.Errorf("run %s: %d + %d events: %w", a.Run, a.Prefix, len(a.Own), ErrHistoryCorrupt)
	}
	d := &histRunData{id: a.Run.Digest, prefix: a.Prefix, status: a.Status}
	for _, t := range a.Tips {
		d.tips = append(d.tips, t.Digest)
	}
	var cur histEventData
	if a.Prefix > 0 {
		d.base = a.Base.Digest
		c, depth, err := h.cumAt(a.Base.Digest, a.Prefix-1, batch)
		if err != nil {
			return nil, fmt.Errorf("run %s: base %s: %w", a.Run, a.Base, err)
		}
		cur, d.depth = c, depth+1
		if err := h.skip(d, batch); err != nil {
			return nil, fmt.Errorf("run %s: base %s: %w", a.Run, a.Base, err)
		}
	}
	n := len(d.events)
	d.events = append(d.events, make([]histEventData, len(a.Own))...)
	for i, e := range a.Own {
		cur.id, cur.step = e.ID.Digest, e.Step
		cur.cost += e.Cost
		cur.dur += e.Duration
		cur.tok += e.Tokens
		if e.HasScore {
			cur.score, cur.hasScore = e.Score, true
		}
		d.events[n+i] = cur
	}
	d.tail = cur.id
	return d, nil
}

// cumAt returns the event record at position i of run d (indexed or in
// batch) and the run's depth.
func (h *History) cumAt(d [32]byte, i int, batch map[[32]byte]*histRunData) (histEventData, int, error) {
	depth := -1
	for hop := 0; hop <= maxHistHops; hop++ {
		if b := batch[d]; b != nil {
			if depth < 0 {
				depth = b.depth
			}
			if i >= b.prefix {
				if i-b.prefix >= len(b.events) {
					break
				}
				return b.events[i-b.prefix], depth, nil
			}
			d = b.base
			continue
		}
		r, ok, err := h.lookup(d)
		if err != nil {
			return histEventData{}, 0, err
		}
		if !ok {
			return histEventData{}, 0, ErrHistoryBase
		}
		if depth < 0 {
			depth = r.depth
		}
		if i >= r.prefix {
			if i-r.prefix >= r.own {
				break
			}
			b, err := r.event(i - r.prefix)
			if err != nil {
				return histEventData{}, 0, err
			}
			e, err := decodeHistEvent(r.layer, b)
			return e, depth, err
		}
		d = r.base
	}
	return histEventData{}, 0, fmt.Errorf("position %d not in the run: %w", i, ErrHistoryCorrupt)
}

// decodeHistEvent decodes one own-event record of layer l.
func decodeHistEvent(l *histLayer, b []byte) (histEventData, error) {
	le := binary.LittleEndian
	var e histEventData
	copy(e.id[:], b[:32])
	s, err := l.step(le.Uint32(b[32:]))
	if err != nil {
		return e, err
	}
	e.step = s
	e.hasScore = le.Uint32(b[36:])&1 != 0
	e.cost = math.Float64frombits(le.Uint64(b[40:]))
	e.dur = math.Float64frombits(le.Uint64(b[48:]))
	e.tok = math.Float64frombits(le.Uint64(b[56:]))
	e.score = math.Float64frombits(le.Uint64(b[64:]))
	return e, nil
}

// layerRuns decodes every run of a layer, for a merge.
func (h *History) layerRuns(l *histLayer) ([]histRunData, error) {
	out := make([]histRunData, 0, l.nruns)
	tails := make(map[[32]byte][32]byte, l.nruns)
	for i := 0; i < l.nruns; i++ {
		var tl, id [32]byte
		copy(tl[:], l.tails[i*histTailSize:])
		copy(id[:], l.tails[i*histTailSize+32:])
		tails[id] = tl
	}
	for i := 0; i < l.nruns; i++ {
		r, err := l.rec(i)
		if err != nil {
			return nil, err
		}
		status, tips, err := h.meta(r)
		if err != nil {
			return nil, err
		}
		d := histRunData{id: r.id, base: r.base, tail: tails[r.id], prefix: r.prefix, depth: r.depth, status: status, events: make([]histEventData, r.own)}
		for _, t := range tips {
			d.tips = append(d.tips, t.Digest)
		}
		for j := range d.events {
			b, err := r.event(j)
			if err != nil {
				return nil, err
			}
			if d.events[j], err = decodeHistEvent(l, b); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// skipMin is the smallest jump skip makes: runs appended one event at a
// time make chains of bases as long as the run, and walking one costs a
// lookup per base, so every run whose depth is a multiple of skipMin takes
// as its base the ancestor at its depth with the lowest set bit cleared
// (a Fenwick tree's parent), copying the records in between. A walk down
// from any run then meets at most skipMin-1 plain bases and log2 of its
// depth jumps; the copies cost O(log n) records per event over a run's
// life, the price of that bound.
const skipMin = 8

// skip rebases d (depth set, base and prefix its natural ones, no events
// yet) onto its Fenwick ancestor when its depth calls for one, moving the
// records between into d's own events. A chain that does not reach the
// ancestor's depth exactly (a fork of a run added in the same batch) is
// left as it is.
func (h *History) skip(d *histRunData, batch map[[32]byte]*histRunData) error {
	low := d.depth & -d.depth
	if d.depth < skipMin || low < skipMin {
		return nil
	}
	target := d.depth - low
	limit := d.prefix
	cur := d.base
	var top histRec
	for hop := 0; ; hop++ {
		if batch[cur] != nil || hop > maxHistHops {
			return nil
		}
		r, ok, err := h.lookup(cur)
		if err != nil || !ok {
			return err
		}
		if hop == 0 {
			top = r
		}
		if r.depth <= target {
			if r.depth != target {
				return nil
			}
			break
		}
		limit = min(limit, r.prefix)
		if limit == 0 {
			break
		}
		cur = r.base
	}
	var copied []histEventData
	err := h.segments(top, limit, d.prefix, func(s histSeg) (bool, error) {
		for i := s.hi - 1; i >= s.lo; i-- {
			b, err := s.r.event(i - s.r.prefix)
			if err != nil {
				return false, err
			}
			e, err := decodeHistEvent(s.r.layer, b)
			if err != nil {
				return false, err
			}
			copied = append(copied, e)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	slices.Reverse(copied)
	d.events = copied
	d.prefix = limit
	if limit == 0 {
		d.base = [32]byte{}
	} else {
		d.base = cur
	}
	return nil
}
