package index

import (
	"slices"

	"github.com/tinehq/tine/objects"
)

// The accessors of `tine log --all`: the event table by position (sorted
// by oid, so positions order events as objects.OID.Compare does) and the
// indexed runs' entries. They return the catalog's own memory, which the
// caller must not modify: a 30,000-event history is walked without
// copying it.

// NumEvents returns the size of the event table.
func (c *Catalog) NumEvents() int { return len(c.d.events) }

// EventAt returns the summary at position i of the event table.
func (c *Catalog) EventAt(i int) *EventSummary { return &c.d.events[i] }

// ParentsAt returns the positions of the parents of the event at position
// i, in parent_ids order.
func (c *Catalog) ParentsAt(i int) []int { return c.d.events[i].parents }

// EventPosition returns the position of event id in the event table, by
// binary search (no map of the table is built).
func (c *Catalog) EventPosition(id objects.OID) (int, bool) {
	return slices.BinarySearchFunc(c.d.events, id, func(e EventSummary, id objects.OID) int { return compareOID(e.ID, id) })
}

// Run returns the entry of run, a run some ref named when the catalog was
// built.
func (c *Catalog) Run(run objects.OID) (*RunEntry, bool) {
	i, ok := c.runByID[run]
	if !ok {
		return nil, false
	}
	return &c.d.runs[i], true
}
