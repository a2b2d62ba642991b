package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// ResolveRun resolves rev to a loaded run and the normalized ref the
// revision went through ("" for an object name). It accepts everything
// plumbing.Repo.ResolveRevision does (full oid, unique hex prefix, ref,
// short ref name, REF@{n}) followed by any number of ~N suffixes ("~" alone
// is ~1), and the result must be a run.
//
// REV~N is the run as it was N events ago: starting from the run's newest
// event (the last in its order), follow first parents N times to event E;
// the result is the run restricted to E's ancestor closure (parents and
// causal links, in the run's order). So `tine diff heads/main~1 heads/main`
// shows exactly the last recorded event, whether the events were recorded
// one by one, imported in bulk or reached through a fork. When the ref's
// reflog holds a stored snapshot with exactly those events, that stored run
// is returned; otherwise the run is derived (Stored false): the source
// payload with events, roots and tips recomputed, its ID the oid it would
// have if written. Walking past the first event is ErrUnknownRevision.
func ResolveRun(ctx context.Context, r *plumbing.Repo, rev string) (*Run, string, error) {
	run, ref, err := resolveRunHead(ctx, r, r.Objects(), rev)
	if err != nil {
		return nil, "", err
	}
	if !run.EventsLoaded() {
		if err := LoadEvents(ctx, r.Objects(), run, nil); err != nil {
			return nil, "", err
		}
	}
	return run, ref, nil
}

// resolveRunHead resolves rev like ResolveRun without reading the events
// of the run it names when a stored run object is that run: the run object
// is read through g (and verified) and its events are left for the caller
// to read. REV~N reads the N events its first-parent walk steps through
// (plumbing.AncestorRun) and, when a stored snapshot in the ref's reflog
// holds the result, nothing more; only a run no stored object holds is
// derived from the source run's events, which are then read.
func resolveRunHead(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string) (*Run, string, error) {
	run, ref, steps, err := resolveBase(ctx, r, g, rev)
	if err != nil || steps == 0 {
		return run, ref, err
	}
	o, err := plumbing.AncestorRun(ctx, r, g, rev, run.Object, ref, steps)
	var ns *plumbing.NotStoredError
	switch {
	case errors.As(err, &ns):
		sub, err := deriveBack(ctx, r, g, run, ref, ns.Event)
		return sub, ref, err
	case err != nil:
		return nil, "", err
	}
	snap, err := RunFromObject(o)
	return snap, ref, err
}

// resolveBase resolves the part of rev before any ~N to a run whose
// payload is read through g (which verifies it) but whose events are not,
// and returns the total of the ~N suffixes.
func resolveBase(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string) (*Run, string, int, error) {
	base, steps, err := plumbing.SplitAncestry(rev)
	if err != nil {
		return nil, "", 0, err
	}
	id, ref, err := r.ResolveRevision(ctx, base)
	if err != nil {
		return nil, "", 0, err
	}
	if id.Type != objects.TypeRun {
		return nil, "", 0, fmt.Errorf("revision %q names %s, a %s: %w", base, id, id.Type, ErrNotRun)
	}
	run, err := readRun(ctx, g, id)
	if err != nil {
		return nil, "", 0, err
	}
	return run, ref, steps, nil
}

// deriveBack returns run restricted to the ancestor closure of its event
// e: the stored snapshot in ref's reflog with exactly those events when
// there is one (a closure whose causal links reach events off the parent
// path has several tips, which plumbing.AncestorRun does not look for),
// else the derived run. It reads run's events.
func deriveBack(ctx context.Context, r *plumbing.Repo, g objects.Getter, run *Run, ref string, e objects.OID) (*Run, error) {
	if err := LoadEvents(ctx, g, run, nil); err != nil {
		return nil, err
	}
	events, err := run.Closure(e)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		// A missing event's parents are unknown, so the closure may stop
		// short of ancestors it should hold: the run, its oid and a diff
		// against it would be wrong. Fork refuses the same way.
		if ev.Missing {
			return nil, fmt.Errorf("run %s as it was at %s: its event %s is not stored: %w", run.ID, e, ev.ID, ErrBeyondShallow)
		}
	}
	if ref != "" {
		if snap, err := reflogSnapshot(ctx, g, r.Refs(), ref, events); err != nil {
			return nil, err
		} else if snap != nil {
			return snap, nil
		}
	}
	return deriveRun(r.Algo(), run, events)
}

// reflogSnapshot returns the newest stored run from ref's reflog whose
// events are exactly events, or nil when there is none.
func reflogSnapshot(ctx context.Context, g objects.Getter, rl Reflogger, ref string, events []*Event) (*Run, error) {
	want := eventOIDs(events)
	var snap *Run
	_, err := plumbing.ReflogRun(ctx, g, rl, ref, objects.OID{}, func(o *objects.Object) (bool, error) {
		run, err := RunFromObject(o)
		if err != nil || !sameOIDs(run.EventIDs(), want) {
			return false, err
		}
		snap = run
		return true, nil
	})
	if err != nil || snap == nil {
		return nil, err
	}
	snap.Events = events
	snap.Reindex()
	return snap, nil
}

// deriveRun builds, without storing it, the run src restricted to events.
func deriveRun(a objects.Algo, src *Run, events []*Event) (*Run, error) {
	o, err := objects.NewJSONObject(a, objects.TypeRun, 1, subRunPayload(src, events))
	if err != nil {
		return nil, fmt.Errorf("derive sub-run of %s: %w", src.ID, err)
	}
	sub, err := RunFromObject(o)
	if err != nil {
		return nil, err
	}
	sub.Stored = false
	sub.Events = events
	sub.Reindex()
	return sub, nil
}

// sameOIDs reports whether a and b are equal lists.
func sameOIDs(a, b []objects.OID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
