package index

import (
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
)

// apply returns the catalog that base with layers on top describes (base
// is consumed: its tables are reused in place), laid
// out exactly as a build from the objects lays it out: events sorted by
// oid, the summaries of events no run lists dropped, runs in ref-target
// order. It costs one pass over the tables and no object read; a layer
// that does not fit what is below it (a run or event it builds on is not
// there) is ErrCorrupt.
func apply(base *data, layers []*delta) (*data, error) {
	if len(layers) == 0 {
		return base, nil
	}
	out := &data{algo: base.algo, rules: base.rules, refs: base.refs, atts: base.atts, anns: base.anns}
	var err error
	for _, l := range layers {
		if out.refs, err = applyRefs(out.refs, l.refs); err != nil {
			return nil, err
		}
		if out.atts, err = applySorted(out.atts, l.atts, l.attsGone, func(a *Attestation) objects.OID { return a.ID }); err != nil {
			return nil, err
		}
		if out.anns, err = applySorted(out.anns, l.anns, l.annsGone, func(a *Annotation) objects.OID { return a.ID }); err != nil {
			return nil, err
		}
	}
	m := &merger{base: base, addedPos: map[objects.OID]int32{}, lists: map[objects.OID]*mergedRun{}}
	for _, l := range layers {
		if err := m.layer(l); err != nil {
			return nil, err
		}
	}
	return out, m.finish(out)
}

// mergedRun is a run with its events (and, for a layer's run, tips) as
// numbers in the merger's space.
type mergedRun struct {
	entry  *RunEntry
	events []int32
	tips   []objects.OID
	layer  bool
}

// merger numbers every event the base and the layers hold: the base's
// table positions first, then the layers' summaries.
type merger struct {
	base     *data
	added    []*EventSummary
	addedPos map[objects.OID]int32
	lists    map[objects.OID]*mergedRun
}

// baseRun returns the base's run id.
func (m *merger) baseRun(id objects.OID) *mergedRun {
	i, ok := slices.BinarySearchFunc(m.base.runs, id, func(r RunEntry, id objects.OID) int { return compareOID(r.Run, id) })
	if !ok {
		return nil
	}
	r := &m.base.runs[i]
	return &mergedRun{entry: r, events: r.Events}
}

// run returns run id as the catalog below the current layer holds it.
func (m *merger) run(id objects.OID) *mergedRun {
	if r, ok := m.lists[id]; ok {
		return r
	}
	return m.baseRun(id)
}

// event returns the number of event id.
func (m *merger) event(id objects.OID) (int32, bool) {
	if n, ok := m.addedPos[id]; ok {
		return n, true
	}
	i, ok := slices.BinarySearchFunc(m.base.events, id, func(e EventSummary, id objects.OID) int { return compareOID(e.ID, id) })
	return int32(i), ok
}

// layer numbers a layer's summaries and resolves its runs' event lists.
func (m *merger) layer(l *delta) error {
	for i := range l.events {
		s := &l.events[i]
		if n, ok := m.addedPos[s.ID]; ok {
			m.added[n-int32(len(m.base.events))] = s
			continue
		}
		m.addedPos[s.ID] = int32(len(m.base.events) + len(m.added))
		m.added = append(m.added, s)
	}
	for i := range l.runs {
		r := &l.runs[i]
		entry := r.entry // the layer is left as it is: it may be written after
		var prefix []int32
		if !r.from.IsZero() {
			f := m.run(r.from)
			if f == nil || r.prefix > len(f.events) || r.inherit && r.prefix != len(f.events) {
				return fmt.Errorf("%w: layer run %s extends %s, which the catalog below lacks or is shorter", ErrCorrupt, r.entry.Run, r.from)
			}
			prefix = f.events[:r.prefix]
			if r.inherit {
				entry.Keyed = mergeKeyed(f.entry.Keyed, r.entry.Keyed)
			}
		}
		evs := make([]int32, len(prefix), len(prefix)+len(r.own))
		copy(evs, prefix)
		for _, id := range r.own {
			n, ok := m.event(id)
			if !ok {
				return fmt.Errorf("%w: layer run %s lists event %s, which no table holds", ErrCorrupt, r.entry.Run, id)
			}
			evs = append(evs, n)
		}
		m.lists[r.entry.Run] = &mergedRun{entry: &entry, events: evs, tips: r.tips, layer: true}
	}
	return nil
}

// summary returns event number n.
func (m *merger) summary(n int32) *EventSummary {
	if nb := int32(len(m.base.events)); n >= nb {
		return m.added[n-nb]
	}
	return &m.base.events[n]
}

// finish lays out out's runs and event table (see eventTable: the same
// rules for a parent or tip outside the table).
func (m *merger) finish(out *data) error {
	targets := runTargets(out.refs)
	runs := make([]*mergedRun, len(targets))
	total := len(m.base.events) + len(m.added)
	used := make([]bool, total)
	for i, id := range targets {
		if runs[i] = m.run(id); runs[i] == nil {
			return fmt.Errorf("%w: run %s is a ref target no table holds", ErrCorrupt, id)
		}
		for _, n := range runs[i].events {
			used[n] = true
		}
	}
	var order []int32
	nb := len(m.base.events)
	for k := range m.added {
		if used[nb+k] {
			order = append(order, int32(nb+k))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return compareOID(m.added[int(a)-nb].ID, m.added[int(b)-nb].ID) })
	remap := make([]int32, total)
	if !m.layOutInPlace(out, used, order, remap) {
		out.events = make([]EventSummary, 0, total)
		i, j := 0, 0
		for i < nb || j < len(order) {
			if i < nb && !used[i] {
				i++
				continue
			}
			n := int32(i)
			if j < len(order) && (i == nb || compareOID(m.summary(order[j]).ID, m.base.events[i].ID) < 0) {
				n = order[j]
				j++
			} else {
				i++
			}
			remap[n] = int32(len(out.events))
			out.events = append(out.events, *m.summary(n))
		}
	}
	m.parents(out, used, remap)
	out.runs = make([]RunEntry, len(runs))
	for k, r := range runs {
		e := *r.entry
		// In place: a base run's list is the base's (apply consumes it),
		// a layer run's was built by layer; no two runs share one.
		e.Events = r.events
		for x, n := range r.events {
			e.Events[x] = remap[n]
		}
		m.tips(out, &e, r, used, remap)
		out.runs[k] = e
	}
	return nil
}

// layOutInPlace merges the added events (order, sorted) into the base's
// event table in place, from the back, when every base event stays and
// the table has room: an append's refresh then moves summaries instead
// of copying the whole table. It reports whether it did.
func (m *merger) layOutInPlace(out *data, used []bool, order []int32, remap []int32) bool {
	ev := m.base.events
	nb := len(ev)
	if cap(ev) < nb+len(order) {
		return false
	}
	for i := range nb {
		if !used[i] {
			return false
		}
	}
	ev = ev[:nb+len(order)]
	i, k := nb-1, len(ev)-1
	for j := len(order) - 1; j >= 0; j, k = j-1, k-1 {
		add := m.summary(order[j])
		for i >= 0 && compareOID(ev[i].ID, add.ID) > 0 {
			ev[k] = ev[i]
			remap[i] = int32(k)
			i, k = i-1, k-1
		}
		ev[k] = *add
		remap[order[j]] = int32(k)
	}
	for ; i >= 0; i-- {
		remap[i] = int32(i)
	}
	out.events = ev
	return true
}

// parents points every summary's parents into out's table: a base
// summary's through remap, a layer's by oid; a parent outside the table
// is left out and the summary is no longer exact. The lists are carved
// from one slab: a table of 30,000 events costs one allocation, not one
// an event.
func (m *merger) parents(out *data, used []bool, remap []int32) {
	total := 0
	for k := range out.events {
		total += len(out.events[k].parentIDs) + len(out.events[k].parents)
	}
	slab := make([]int, 0, total)
	for k := range out.events {
		s := &out.events[k]
		ids, nums := s.parentIDs, s.parents
		start := len(slab)
		for _, id := range ids {
			if p, ok := slices.BinarySearchFunc(out.events, id, func(e EventSummary, id objects.OID) int { return compareOID(e.ID, id) }); ok {
				slab = append(slab, p)
			} else {
				s.Exact = false
			}
		}
		for _, n := range nums {
			if used[n] {
				slab = append(slab, int(remap[n]))
			} else {
				s.Exact = false
			}
		}
		s.parentIDs, s.parents = nil, nil
		if len(slab) > start {
			s.parents = slab[start:len(slab):len(slab)]
		}
	}
}

// tips sets e's tips: a base run's through remap, a layer run's by oid;
// the first tip outside the table ends them and the run is not exact.
func (m *merger) tips(out *data, e *RunEntry, r *mergedRun, used []bool, remap []int32) {
	e.Tips = nil
	if !r.layer {
		e.Tips = make([]int32, 0, len(r.entry.Tips))
		for _, n := range r.entry.Tips {
			if !used[n] {
				e.Exact = false
				break
			}
			e.Tips = append(e.Tips, remap[n])
		}
		return
	}
	for _, id := range r.tips {
		p, ok := slices.BinarySearchFunc(out.events, id, func(e EventSummary, id objects.OID) int { return compareOID(e.ID, id) })
		if !ok {
			e.Exact = false
			break
		}
		e.Tips = append(e.Tips, int32(p))
	}
}

// applyRefs applies ref changes (sorted by name; a zero id deletes) to a
// sorted ref snapshot.
func applyRefs(cur, changes []RefEntry) ([]RefEntry, error) {
	if len(changes) == 0 {
		return cur, nil
	}
	out := make([]RefEntry, 0, len(cur)+len(changes))
	i := 0
	for _, c := range changes {
		for i < len(cur) && cur[i].Name < c.Name {
			out = append(out, cur[i])
			i++
		}
		exists := i < len(cur) && cur[i].Name == c.Name
		if exists {
			i++
		} else if c.ID.IsZero() {
			return nil, fmt.Errorf("%w: layer deletes ref %s, which the catalog below lacks", ErrCorrupt, c.Name)
		}
		if !c.ID.IsZero() {
			out = append(out, c)
		}
	}
	return append(out, cur[i:]...), nil
}

// applySorted removes gone from and merges add into cur, all sorted by
// oid; removing what is absent or adding what is present is ErrCorrupt.
func applySorted[T any](cur, add []T, gone []objects.OID, id func(*T) objects.OID) ([]T, error) {
	if len(add) == 0 && len(gone) == 0 {
		return cur, nil
	}
	out := make([]T, 0, len(cur)+len(add))
	i, j, g := 0, 0, 0
	for i < len(cur) || j < len(add) {
		if i < len(cur) && g < len(gone) && compareOID(id(&cur[i]), gone[g]) == 0 {
			i, g = i+1, g+1
			continue
		}
		switch {
		case j == len(add) || i < len(cur) && compareOID(id(&cur[i]), id(&add[j])) < 0:
			out = append(out, cur[i])
			i++
		case i < len(cur) && compareOID(id(&cur[i]), id(&add[j])) == 0:
			return nil, fmt.Errorf("%w: layer adds %s, which the catalog below holds", ErrCorrupt, id(&add[j]))
		default:
			out = append(out, add[j])
			j++
		}
	}
	if g != len(gone) {
		return nil, fmt.Errorf("%w: layer removes %s, which the catalog below lacks", ErrCorrupt, gone[g])
	}
	return out, nil
}

// mergeKeyed merges two sorted evidence row lists, dropping duplicates.
func mergeKeyed(a, b []KeyedEvent) []KeyedEvent {
	out := make([]KeyedEvent, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && compareKeyed(a[i], b[j]) < 0:
			out = append(out, a[i])
			i++
		case i == len(a) || compareKeyed(b[j], a[i]) < 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
