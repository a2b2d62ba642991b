package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Lazy history (log, diff, log --all).
//
// A run object lists its events' oids, so the history verbs decide from
// those lists alone which events they need, and read only those: log -n N
// reads the N newest, diff the divergent ones and, once each, the shared
// ones its totals and tool paths sum, log --all each event of the union
// once whatever the number of runs holding it. Every read still goes
// through objects.Getter, which re-hashes what it returns. A run read this
// way has no Events (EventsLoaded is false) until LoadEvents fills them.

// EventsLoaded reports whether run.Events holds the run's events (LoadRun,
// LoadEvents, a REV~N run), as opposed to a payload read alone
// (RunFromObject), whose events are read on demand.
func (r *Run) EventsLoaded() bool { return r.index != nil }

// runEvent returns event id of run: from run.Events when they are loaded,
// else read through g.
func runEvent(ctx context.Context, g objects.Getter, run *Run, id objects.OID) (*Event, error) {
	if run.EventsLoaded() {
		if e, ok := run.Event(id); ok {
			return e, nil
		}
		return nil, fmt.Errorf("event %s, run %s: %w", id, run.ID, ErrEventNotInRun)
	}
	return loadEvent(ctx, g, run.ID, id)
}

// eventList is a run's event oids in its order, parsed only where read:
// log -n N of a long run parses N of them, not the whole list.
type eventList struct {
	run  *Run
	strs []objects.Value // the payload's events, when not loaded
}

// newEventList returns run's event list.
func newEventList(run *Run) (eventList, error) {
	if run.EventsLoaded() {
		return eventList{run: run}, nil
	}
	l, ok := run.Value.Get("events")
	if !ok || l.Kind == objects.KindNull {
		return eventList{run: run}, nil
	}
	if l.Kind != objects.KindArray {
		return eventList{}, fmt.Errorf("run %s: events is not a list", run.ID)
	}
	return eventList{run: run, strs: l.Array}, nil
}

// Len returns the number of events.
func (l eventList) Len() int {
	if l.run.EventsLoaded() {
		return len(l.run.Events)
	}
	return len(l.strs)
}

// At returns the i-th event oid.
func (l eventList) At(i int) (objects.OID, error) {
	if l.run.EventsLoaded() {
		return l.run.Events[i].ID, nil
	}
	v := l.strs[i]
	if v.Kind != objects.KindString {
		return objects.OID{}, fmt.Errorf("run %s: events[%d] is not an oid", l.run.ID, i)
	}
	id, err := objects.ParseOID(v.Str)
	if err != nil {
		return objects.OID{}, fmt.Errorf("run %s: events[%d]: %w", l.run.ID, i, err)
	}
	return id, nil
}
