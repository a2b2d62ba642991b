package index

import (
	"github.com/tinehq/tine/objects"
)

// RunSummary returns the run table row of run, folded from the catalog's
// event summaries without reading any object; ok is false when no ref
// named run when the catalog was built.
func (c *Catalog) RunSummary(run objects.OID) (RunSummary, bool) {
	i, ok := c.runByID[run]
	if !ok {
		return RunSummary{}, false
	}
	r := &c.d.runs[i]
	evs := make([]*EventSummary, len(r.Events))
	for j, n := range r.Events {
		evs[j] = &c.d.events[n]
	}
	return foldRun(r.Run, r.Status, r.CreatedAt, r.HasCreatedAt, evs), true
}

// RunEvents returns the summaries of run's events in the run's order, or
// nil when no ref named run when the catalog was built.
func (c *Catalog) RunEvents(run objects.OID) []EventSummary {
	i, ok := c.runByID[run]
	if !ok {
		return nil
	}
	r := &c.d.runs[i]
	out := make([]EventSummary, len(r.Events))
	for j, n := range r.Events {
		out[j] = c.d.events[n]
	}
	return out
}

// Event returns the summary of an event of a run a ref names.
func (c *Catalog) Event(id objects.OID) (EventSummary, bool) {
	i, ok := c.eventPos(id)
	if !ok {
		return EventSummary{}, false
	}
	return c.d.events[i], true
}

// Events calls fn with every event summary, sorted by oid: the events of
// the runs refs named when the catalog was built.
func (c *Catalog) Events(fn func(EventSummary) error) error {
	for _, e := range c.d.events {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// RunsWithEvent returns the indexed runs that list event id, sorted by
// oid. The inverse table is built on first use.
func (c *Catalog) RunsWithEvent(id objects.OID) []objects.OID {
	n, ok := c.eventPos(id)
	if !ok {
		return nil
	}
	c.inverse.Do(func() {
		c.runsOf = make([][]int32, len(c.d.events))
		for i := range c.d.runs {
			for _, m := range c.d.runs[i].Events {
				c.runsOf[m] = append(c.runsOf[m], int32(i))
			}
		}
	})
	out := make([]objects.OID, 0, len(c.runsOf[n]))
	for _, i := range c.runsOf[n] {
		if len(out) == 0 || out[len(out)-1] != c.d.runs[i].Run {
			out = append(out, c.d.runs[i].Run)
		}
	}
	return out
}

// eventPos returns the position of event id in the event table.
func (c *Catalog) eventPos(id objects.OID) (int, bool) {
	c.byEvent.Do(func() {
		c.eventByID = make(map[objects.OID]int, len(c.d.events))
		for i := range c.d.events {
			c.eventByID[c.d.events[i].ID] = i
		}
	})
	i, ok := c.eventByID[id]
	return i, ok
}

// Parents returns the parent_ids of an event of a run a ref names, as the
// catalog holds them (the history verbs' first-parent walks need no event
// read).
func (c *Catalog) Parents(id objects.OID) []objects.OID {
	i, ok := c.eventPos(id)
	if !ok {
		return nil
	}
	ps := c.d.events[i].parents
	out := make([]objects.OID, len(ps))
	for j, n := range ps {
		out[j] = c.d.events[n].ID
	}
	return out
}
