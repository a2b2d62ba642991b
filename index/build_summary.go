package index

import (
	"slices"

	"github.com/tinehq/tine/objects"
)

// summarizeRun records run o's status and event list in e and makes sure
// every event has a summary: one the old catalog or this build already
// holds is reused, so a run that extends or forks an indexed run reads
// only the events it adds.
func (b *builder) summarizeRun(o *runView, events []objects.OID, e *RunEntry) error {
	e.Status, e.CreatedAt, e.HasCreatedAt = runStatus(o)
	e.tipIDs, e.Exact = runTips(o)
	e.Fork, e.ForkExact = runFork(o)
	for _, ev := range events {
		if _, ok := b.summ[ev]; ok {
			continue
		}
		if _, ok := b.oldEvent(ev); ok {
			continue
		}
		if err := b.readEvent(ev); err != nil {
			return err
		}
	}
	nums := make([]int32, len(events))
	for i, ev := range events {
		nums[i] = b.intern(ev)
	}
	b.runEvents[o.id] = nums
	return nil
}

// oldEvent returns the position of event id in the old catalog's event
// table (sorted by oid), found by binary search: an update must not pay a
// map of every indexed event.
func (b *builder) oldEvent(id objects.OID) (int, bool) {
	if b.old == nil {
		return 0, false
	}
	return slices.BinarySearchFunc(b.old.events, id, func(e EventSummary, id objects.OID) int { return compareOID(e.ID, id) })
}

// eventTable builds d's event table, the union of its runs' events sorted
// by oid, and points each run's Events at it. The old table's events that
// some run still lists are merged with the events read now in one pass,
// so an update costs a scan of the table, not a sort or a map of it;
// summaries of events no run lists any more are dropped.
func (b *builder) eventTable(d *data) {
	var oldN int
	if b.old != nil {
		oldN = len(b.old.events)
	}
	used := make([]bool, oldN)
	for _, r := range d.runs {
		if _, indexedNow := b.runEvents[r.Run]; !indexedNow {
			for _, n := range r.Events {
				used[n] = true
			}
		}
	}
	// Each event the runs indexed now list, once: its old position, or
	// -1 for an event the old table lacks.
	oldPos := make([]int, len(b.eventIDs))
	var add []objects.OID
	for k, id := range b.eventIDs {
		oldPos[k] = -1
		if i, ok := b.oldEvent(id); ok {
			used[i] = true
			oldPos[k] = i
		} else {
			add = append(add, id)
		}
	}
	sortOIDs(add)
	remap := make([]int, oldN)
	newPos := make(map[objects.OID]int, len(add))
	d.events = make([]EventSummary, 0, len(add)+oldN)
	i, j := 0, 0
	for i < oldN || j < len(add) {
		if i < oldN && !used[i] {
			i++
			continue
		}
		if j == len(add) || i < oldN && compareOID(b.old.events[i].ID, add[j]) < 0 {
			remap[i] = len(d.events)
			d.events = append(d.events, b.old.events[i])
			i++
			continue
		}
		newPos[add[j]] = len(d.events)
		s, ok := b.summ[add[j]]
		if !ok {
			// Unreachable: summarizeRun read every event it did not
			// find. Kept missing rather than guessed.
			s = &EventSummary{ID: add[j], Missing: true}
		}
		d.events = append(d.events, *s)
		j++
	}
	// Parents point into the new table: an old event's through remap, a
	// new event's by oid; a parent outside the table (no run lists it,
	// which validation forbids) is left out.
	pos := func(id objects.OID) (int, bool) {
		if n, ok := newPos[id]; ok {
			return n, true
		}
		if i, ok := b.oldEvent(id); ok && used[i] {
			return remap[i], true
		}
		return 0, false
	}
	for k := range d.events {
		e := &d.events[k]
		if e.parentIDs != nil {
			var ps []int
			for _, id := range e.parentIDs {
				if n, ok := pos(id); ok {
					ps = append(ps, n)
				} else {
					e.Exact = false
				}
			}
			e.parents, e.parentIDs = ps, nil
			continue
		}
		if len(e.parents) > 0 {
			ps := make([]int, 0, len(e.parents))
			for _, n := range e.parents {
				if used[n] {
					ps = append(ps, remap[n])
				} else {
					e.Exact = false
				}
			}
			e.parents = ps
		}
	}
	// Every interned event's place in the new table.
	final := make([]int32, len(b.eventIDs))
	for k, id := range b.eventIDs {
		if oldPos[k] >= 0 {
			final[k] = int32(remap[oldPos[k]])
		} else {
			final[k] = int32(newPos[id])
		}
	}
	for k := range d.runs {
		r := &d.runs[k]
		ids, indexedNow := b.runEvents[r.Run]
		if !indexedNow {
			pos := make([]int32, len(r.Events))
			for x, n := range r.Events {
				pos[x] = int32(remap[n])
			}
			r.Events = pos
			tips := make([]int32, len(r.Tips))
			for x, n := range r.Tips {
				tips[x] = int32(remap[n])
			}
			r.Tips = tips
			continue
		}
		r.Events = make([]int32, len(ids))
		for x, k := range ids {
			r.Events[x] = final[k]
		}
		r.Tips = make([]int32, 0, len(r.tipIDs))
		for _, id := range r.tipIDs {
			n, ok := pos(id)
			if !ok {
				r.Exact = false
				break
			}
			r.Tips = append(r.Tips, int32(n))
		}
		r.tipIDs = nil
	}
}
