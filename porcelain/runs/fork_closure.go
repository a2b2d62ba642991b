package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// forkClosure returns the events of src that are ev or its ancestors
// through parent_ids and causal_ids, in src's order, with their objects.
// It reads those events only (each through g, which re-hashes it), never
// the rest of src: forking early in a long run costs the fork's events.
// src's event list gives each event's position without a read. An event
// on the shallow boundary is refused with ErrBeyondShallow: its ancestors
// are unknown, so the fork's list would be cut short. One absent otherwise
// is damage (plumbing.Absent).
func forkClosure(ctx context.Context, g objects.Getter, src *Run, ev objects.OID) ([]*Event, []*objects.Object, error) {
	list, err := newEventList(src)
	if err != nil {
		return nil, nil, err
	}
	position := make(map[objects.OID]int, list.Len())
	for i := range list.Len() {
		id, err := list.At(i)
		if err != nil {
			return nil, nil, err
		}
		position[id] = i
	}
	if _, ok := position[ev]; !ok {
		return nil, nil, fmt.Errorf("event %s, run %s: %w", ev, src.ID, ErrEventNotInRun)
	}
	byPos := map[int]*Event{}
	objs := map[objects.OID]*objects.Object{}
	stack := []objects.OID{ev}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := position[id]
		if !ok {
			// SPEC §1.5 graph rules keep links inside the run.
			return nil, nil, fmt.Errorf("event %s links %s outside run %s: %w", ev, id, src.ID, ErrEventNotInRun)
		}
		if byPos[i] != nil {
			continue
		}
		o, err := g.Get(ctx, id)
		if err != nil && plumbing.Absent(id, err) == nil {
			if id == ev {
				return nil, nil, fmt.Errorf("cannot fork at %s: the event is not stored: %w", ev, ErrBeyondShallow)
			}
			return nil, nil, fmt.Errorf("cannot fork at %s: its ancestor %s is not stored: %w", ev, id, ErrBeyondShallow)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: event %s: %w", src.ID, id, plumbing.Absent(id, err))
		}
		e, err := DecodeEvent(o)
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: %w", src.ID, err)
		}
		byPos[i], objs[id] = e, o
		stack = append(stack, e.Parents...)
		stack = append(stack, e.Causal...)
	}
	events := make([]*Event, 0, len(byPos))
	closure := make([]*objects.Object, 0, len(byPos))
	for i := range list.Len() {
		if e := byPos[i]; e != nil {
			events = append(events, e)
			closure = append(closure, objs[e.ID])
		}
	}
	return events, closure, nil
}
