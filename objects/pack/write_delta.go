package pack

import "fmt"

// Writing run deltas (delta.go). A Writer remembers the last few runs
// added to it; a new run is stored as a delta against whichever of them
// gives the shortest instructions (or the first, newest first, giving
// instructions under 1/64 of the run), when those are under half the
// run's size and the base's chain is shorter than the writer's depth
// bound.
// Otherwise the run is stored whole and starts a new chain. Bases are
// always in the same pack, so every pack stays readable on its own. A
// delta block is queued until the block holding its base (or anything
// added before it) is written, so the pack's order stays the order of
// Add and a walk meets every base before its deltas.

const (
	// spDeltaWindow is how many recent runs are tried as bases: appends to
	// a few runs at once (a loop's branches) interleave in write order.
	spDeltaWindow = 4
	// spMaxDeltaTarget is the largest run considered for a delta; larger
	// ones are streamed whole like any large object.
	spMaxDeltaTarget = LargeObject * 64
	// spGoodDelta: a delta at most 1/spGoodDelta of its run's size ends
	// the search for a base.
	spGoodDelta = 64
)

// spRecent is a run the writer added: its key, envelope and the number of
// deltas a read follows to rebuild it (0 when stored whole), and its block
// index once a target needed it (kept: the run is tried as the base of
// each of the next spDeltaWindow runs).
type spRecent struct {
	key   spKey
	env   []byte
	depth int
	index deltaIndex
}

// spEntryBlock is a whole delta block waiting to be written, with its
// entry.
type spEntryBlock struct {
	e   spEntry
	blk []byte
}

// addRun stores the run of entry e as a delta when one pays (see above)
// and reports whether it did; either way it becomes a candidate base.
func (w *Writer) addRun(e spEntry, head, body []byte) bool {
	env := make([]byte, 0, len(head)+len(body))
	env = append(append(env, head...), body...)
	best, bestOps := -1, []byte(nil)
	// Newest first: the run just before is the best base nearly always
	// (a loop's checkpoint writes sibling branches' runs one after the
	// other: 1,899 times in 1,968), and a delta under 1/64 of the run
	// is taken without trying the others.
	for i := len(w.recent) - 1; i >= 0; i-- {
		r := &w.recent[i]
		if r.depth >= w.deltaDepth {
			continue
		}
		ops := encodeDeltaIndexed(r.env, env, &r.index)
		if best < 0 || len(ops) < len(bestOps) {
			best, bestOps = i, ops
		}
		if len(bestOps) <= len(env)/spGoodDelta {
			break
		}
	}
	depth := 0
	ok := best >= 0 && len(bestOps) < len(env)/2 && spBlockHeader+spDeltaHeader+len(bestOps) <= spStreamRead
	if ok {
		depth = w.recent[best].depth + 1
		blk := appendDeltaBlock(nil, e.length, e.key, w.recent[best].key, uint32(depth), bestOps)
		w.deltas = append(w.deltas, spEntryBlock{e: e, blk: blk})
	}
	if len(w.recent) == spDeltaWindow {
		copy(w.recent, w.recent[1:])
		w.recent = w.recent[:spDeltaWindow-1]
	}
	w.recent = append(w.recent, spRecent{key: e.key, env: env, depth: depth})
	return ok
}

// writeDeltas writes the queued delta blocks, each a block of its own.
func (w *Writer) writeDeltas() error {
	for _, d := range w.deltas {
		off := w.sink.n
		w.sink.crc = 0
		if _, err := w.sink.Write(d.blk); err != nil {
			return fmt.Errorf("write storage pack: %w", err)
		}
		d.e.off, d.e.size, d.e.crc = uint64(off), uint32(len(d.blk)), w.sink.crc
		w.entries = append(w.entries, d.e)
	}
	w.deltas = w.deltas[:0]
	return nil
}
