package runs

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// log --all from the catalog.
//
// The catalog (package index) holds, for every run a ref names, its
// status, event positions and tips, and for every event the fields log
// shows. Serving log --all from it reads no run object and no event: the
// file is checksummed and brought up to date with the refs first (as
// `tine runs` does), so it names exactly the runs the refs name now. What
// the catalog could not hold whole (a summary cut at its bounds, a value
// it parses otherwise than the porcelain, an event missing when it was
// built) is read from the objects as the direct path reads it, and a run
// it could not read sends the whole listing to the direct path, which
// reports the error. The result is the direct path's, byte for byte;
// LogOptions.Direct skips the catalog to check that.

// logAllCatalog is logAll served by the catalog. ok is false when the
// catalog cannot serve it (it fails to load, or a run is inexact): the
// caller then takes the direct path.
// Events the catalog lacks are read through g.
func logAllCatalog(ctx context.Context, r *plumbing.Repo, g objects.Getter, limit int) (res *LogResult, parents [][]int32, ok bool, err error) {
	cat, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, nil, false, nil
	}
	return logAllFrom(ctx, cat, g, limit)
}

// logAllFrom is logAllCatalog from a catalog already loaded.
func logAllFrom(ctx context.Context, cat *index.Catalog, g objects.Getter, limit int) (res *LogResult, parents [][]int32, ok bool, err error) {
	u := &catalogUnion{cat: cat, g: g, slot: make([]int32, cat.NumEvents()), read: map[int]*Event{}}
	for i := range u.slot {
		u.slot[i] = -1
	}
	res = &LogResult{Runs: []LogRun{}, Entries: []LogEntry{}}
	deco := map[int32][]string{}
	for _, ref := range cat.Refs("") {
		if ref.ID.Type != objects.TypeRun || refs.NamespaceOf(ref.Name) == refs.NamespaceAnnotations {
			continue
		}
		re, found := cat.Run(ref.ID)
		if !found || !re.Exact {
			return nil, nil, false, nil
		}
		res.Runs = append(res.Runs, LogRun{Ref: ref.Name, Run: ref.ID.String(), Status: re.Status, Events: len(re.Events)})
		for _, t := range re.Tips {
			deco[t] = append(deco[t], ref.Name)
		}
		if err := u.add(ctx, ref.Name, ref.ID, re.Events); err != nil {
			return nil, nil, false, err
		}
	}
	order := u.order()
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	// Graph nodes are numbered by their place in the output.
	shown := make([]int32, len(u.pos))
	for i := range shown {
		shown[i] = -1
	}
	for k, s := range order {
		shown[s] = int32(k)
	}
	parents = make([][]int32, len(order))
	res.Entries = make([]LogEntry, 0, len(order))
	u.ids = make([]string, len(u.pos))
	u.nums = make([]float64, 0, 2*len(order))
	for k, s := range order {
		p := u.pos[s]
		le := u.entry(s, p)
		le.Refs = deco[int32(p)]
		res.Entries = append(res.Entries, le)
		for _, ps := range u.parents[s] {
			if n := shown[ps]; n >= 0 && !containsInt32(parents[k], n) {
				parents[k] = append(parents[k], n)
			}
		}
	}
	return res, parents, true, nil
}

// catalogUnion is the union of the listed runs' events: slot numbers
// them in the order first met, pos maps a slot back to its position in
// the catalog's event table, and read holds the events the catalog could
// not describe whole, read from the objects.
type catalogUnion struct {
	cat     *index.Catalog
	g       objects.Getter
	slot    []int32
	pos     []int
	parents [][]int32
	time    []float64
	timed   []bool
	read    map[int]*Event
	// ids spells each slot's oid once (an event's and its children's
	// parent lists share it); nums backs the entries' time and score.
	ids  []string
	nums []float64
}

// add puts the events at positions events (a run's, in its order) into
// the union, reading those the catalog holds inexactly.
func (u *catalogUnion) add(ctx context.Context, ref string, run objects.OID, events []int32) error {
	for _, p32 := range events {
		p := int(p32)
		if u.slot[p] >= 0 {
			continue
		}
		u.slot[p] = int32(len(u.pos))
		u.pos = append(u.pos, p)
		s := u.cat.EventAt(p)
		if s.Exact && !s.Missing {
			t := 0.0
			if s.HasTime {
				t = s.Time
			}
			u.time = append(u.time, t)
			u.timed = append(u.timed, s.HasTime)
			continue
		}
		// Missing when the catalog was built is read again: the event
		// may have been fetched since.
		e, err := loadEvent(ctx, u.g, run, s.ID)
		if err != nil {
			return fmt.Errorf("ref %s: %w", ref, err)
		}
		u.read[p] = e
		u.time = append(u.time, e.TimeUnix)
		u.timed = append(u.timed, e.HasTime)
	}
	return nil
}

// parentsOf returns the positions of the parents of the event at p.
func (u *catalogUnion) parentsOf(p int) []int {
	e, ok := u.read[p]
	if !ok {
		return u.cat.ParentsAt(p)
	}
	var out []int
	for _, id := range e.Parents {
		if q, ok := u.cat.EventPosition(id); ok {
			out = append(out, q)
		}
	}
	return out
}

// order returns the union's slots children before parents, newest
// time_unix first, then smallest oid (the event table is sorted by oid,
// so by position): mergedOrder over slots.
func (u *catalogUnion) order() []int32 {
	n := len(u.pos)
	u.parents = make([][]int32, n)
	children := make([]int32, n)
	for s := range n {
		for _, q := range u.parentsOf(u.pos[s]) {
			ps := u.slot[q]
			if ps < 0 || containsInt32(u.parents[s], ps) {
				continue
			}
			u.parents[s] = append(u.parents[s], ps)
			children[ps]++
		}
	}
	h := &slotHeap{u: u}
	for s := range n {
		if children[s] == 0 {
			h.s = append(h.s, int32(s))
		}
	}
	heap.Init(h)
	out := make([]int32, 0, n)
	for h.Len() > 0 {
		s := heap.Pop(h).(int32)
		out = append(out, s)
		for _, ps := range u.parents[s] {
			children[ps]--
			if children[ps] == 0 {
				heap.Push(h, ps)
			}
		}
	}
	return out
}

// slotHeap is a min-heap of union slots by time descending, then
// position ascending; slots without time after those with time 0, the
// last met first (newerFirst).
type slotHeap struct {
	u *catalogUnion
	s []int32
}

func (h *slotHeap) Len() int { return len(h.s) }
func (h *slotHeap) Less(i, j int) bool {
	a, b := h.s[i], h.s[j]
	if ta, tb := h.u.time[a], h.u.time[b]; ta != tb {
		return ta > tb
	}
	if xa, xb := h.u.timed[a], h.u.timed[b]; xa != xb {
		return xa
	} else if !xa {
		return a > b
	}
	return h.u.pos[a] < h.u.pos[b]
}
func (h *slotHeap) Swap(i, j int) { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *slotHeap) Push(x any)    { h.s = append(h.s, x.(int32)) }
func (h *slotHeap) Pop() any {
	n := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return n
}

// entry is the log entry of the event at position p, slot s: the event
// read, else its summary, which holds every field log shows.
func (u *catalogUnion) entry(s32 int32, p int) LogEntry {
	if e, ok := u.read[p]; ok {
		return detached(logEntry(e, nil))
	}
	s := u.cat.EventAt(p)
	id := u.idString(s32, p)
	le := LogEntry{Event: id, Short: id[len(id)-2*len(s.ID.Digest):][:shortHex], Kind: s.Kind, Model: s.Model, Tool: s.Tool,
		Label: s.Kind, Cost: s.Cost, Duration: s.Duration, Tokens: s.Tokens, Error: s.Error}
	switch {
	case s.Model != "":
		le.Label = s.Model
	case s.Tool != "":
		le.Label = s.Tool
	}
	if s.HasScore {
		le.Score = u.num(s.Score)
	}
	if s.HasTime {
		le.TimeUnix = u.num(s.Time)
	}
	if s.HasExit {
		v := s.ExitCode
		le.ExitCode = &v
	}
	if len(s.Words) > 0 {
		le.Command = ShellQuote(s.Words)
		if len(le.Command) > maxCommandChars {
			le.Command = le.Command[:maxCommandChars] + "..."
		}
	}
	ps := u.cat.ParentsAt(p)
	le.Parents = make([]string, len(ps))
	for i, q := range ps {
		le.Parents[i] = u.idString(u.slot[q], q)
	}
	return le
}

// idString spells the oid at position p (slot s, -1 when not in the
// union) once per slot.
func (u *catalogUnion) idString(s int32, p int) string {
	if s < 0 {
		return u.cat.EventAt(p).ID.String()
	}
	if u.ids[s] == "" {
		u.ids[s] = u.cat.EventAt(p).ID.String()
	}
	return u.ids[s]
}

// num returns a pointer to v carved from one backing array.
func (u *catalogUnion) num(v float64) *float64 {
	if len(u.nums) == cap(u.nums) {
		u.nums = make([]float64, 0, 1024)
	}
	u.nums = append(u.nums, v)
	return &u.nums[len(u.nums)-1]
}
