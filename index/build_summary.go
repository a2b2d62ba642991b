package index

import (
	"github.com/tinehq/tine/objects"
)

// summarizeRun records run o's status and event list in e and makes sure
// every event has a summary: one the old catalog or this build already
// holds is reused, so a run that extends or forks an indexed run reads
// only the events it adds.
func (b *builder) summarizeRun(o *objects.Object, events []objects.OID, e *RunEntry) error {
	e.Status, e.CreatedAt, e.HasCreatedAt = runStatus(o)
	for _, ev := range events {
		if _, ok := b.summ[ev]; ok {
			continue
		}
		if err := b.readEvent(ev); err != nil {
			return err
		}
	}
	b.runEvents[o.ID] = events
	return nil
}

// eventTable builds d's event table, the union of its runs' events sorted
// by oid, and points each run's Events at it; summaries of events no run
// lists any more are dropped.
func (b *builder) eventTable(d *data) {
	var ids []objects.OID
	for _, r := range d.runs {
		ids = append(ids, b.runEvents[r.Run]...)
	}
	sortOIDs(ids)
	pos := make(map[objects.OID]int, len(ids))
	d.events = make([]EventSummary, 0, len(ids))
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			continue
		}
		pos[id] = len(d.events)
		s, ok := b.summ[id]
		if !ok {
			// Unreachable: summarizeRun and the old table cover every
			// listed event. Kept missing rather than guessed.
			s = &EventSummary{ID: id, Missing: true}
		}
		d.events = append(d.events, *s)
	}
	for i := range d.runs {
		r := &d.runs[i]
		list := b.runEvents[r.Run]
		r.Events = make([]int, len(list))
		for j, id := range list {
			r.Events[j] = pos[id]
		}
	}
}
