package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
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

// resolveRunHead is ResolveRun without reading the events of a run named
// directly: the run object is read through g (and verified) and its events are left
// for the caller to read. REV~N still needs the run's events (its closure
// walks parents), so such a revision is resolved by ResolveRun.
func resolveRunHead(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string) (*Run, string, error) {
	run, ref, steps, err := resolveBase(ctx, r, g, rev)
	if err != nil || steps == 0 {
		return run, ref, err
	}
	return backSteps(ctx, r, g, run, ref, rev, steps)
}

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
