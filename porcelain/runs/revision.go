package runs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// maxAncestorSteps bounds N in REV~N (the SPEC's graph traversal bound,
// §1.6), and maxReflogScan the reflog rows ResolveRun inspects.
const (
	maxAncestorSteps = 10000
	maxReflogScan    = 1000
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
	run, ref, steps, err := resolveBase(ctx, r, r.Objects(), rev)
	if err != nil {
		return nil, "", err
	}
	return backSteps(ctx, r, r.Objects(), run, ref, rev, steps)
}

// resolveBase resolves the part of rev before any ~N to a run whose
// payload is read through g (which verifies it) but whose events are not,
// and returns the total of the ~N suffixes.
func resolveBase(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string) (*Run, string, int, error) {
	base, steps, err := splitAncestry(rev)
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
	o, err := g.Get(ctx, id)
	if err != nil {
		return nil, "", 0, fmt.Errorf("run %s: %w", id, err)
	}
	run, err := RunFromObject(o)
	if err != nil {
		return nil, "", 0, err
	}
	return run, ref, steps, nil
}

// backSteps loads run's events through g and returns it, or with steps > 0
// the run as it was steps events ago (runBack).
func backSteps(ctx context.Context, r *plumbing.Repo, g objects.Getter, run *Run, ref, rev string, steps int) (*Run, string, error) {
	if err := LoadEvents(ctx, g, run, nil); err != nil {
		return nil, "", err
	}
	if steps == 0 {
		return run, ref, nil
	}
	sub, err := runBack(ctx, r, run, ref, rev, steps)
	if err != nil {
		return nil, "", err
	}
	return sub, ref, nil
}

// splitAncestry splits "BASE~N~M..." into BASE and N+M.
func splitAncestry(rev string) (string, int, error) {
	if len(rev) > plumbing.MaxRevisionLen {
		return "", 0, fmt.Errorf("revision %.40q...: %w", rev, plumbing.ErrBadRevision)
	}
	total := 0
	base := rev
	for {
		i := strings.LastIndexByte(base, '~')
		if i < 0 {
			break
		}
		digits := base[i+1:]
		n := 1
		if digits != "" {
			v, err := strconv.Atoi(digits)
			if err != nil || v < 0 || strings.Trim(digits, "0123456789") != "" {
				return "", 0, fmt.Errorf("revision %q: want REV~N with a decimal N: %w", rev, plumbing.ErrBadRevision)
			}
			n = v
		}
		total += n
		if total > maxAncestorSteps {
			return "", 0, fmt.Errorf("revision %q: at most ~%d: %w", rev, maxAncestorSteps, plumbing.ErrBadRevision)
		}
		base = base[:i]
	}
	if base == "" {
		return "", 0, fmt.Errorf("revision %q names nothing before ~: %w", rev, plumbing.ErrBadRevision)
	}
	return base, total, nil
}

// runBack returns the run as it was steps events ago (see ResolveRun).
func runBack(ctx context.Context, r *plumbing.Repo, run *Run, ref, rev string, steps int) (*Run, error) {
	if len(run.Events) == 0 {
		return nil, fmt.Errorf("revision %q: run %s has no events: %w", rev, run.ID, plumbing.ErrUnknownRevision)
	}
	cur := run.Events[len(run.Events)-1]
	for i := 0; i < steps; i++ {
		if cur.Missing {
			return nil, fmt.Errorf("revision %q: event %s of run %s is not stored: %w", rev, cur.ID, run.ID, ErrBeyondShallow)
		}
		if len(cur.Parents) == 0 {
			return nil, fmt.Errorf("revision %q: run %s has only %d event(s) before its newest along first parents: %w",
				rev, run.ID, i, plumbing.ErrUnknownRevision)
		}
		next, ok := run.Event(cur.Parents[0])
		if !ok {
			return nil, fmt.Errorf("event %s, run %s: %w", cur.Parents[0], run.ID, ErrEventNotInRun)
		}
		cur = next
	}
	events, err := run.Closure(cur.ID)
	if err != nil {
		return nil, err
	}
	if ref != "" {
		if snap, err := reflogSnapshot(ctx, r.Objects(), r.Refs(), ref, events); err != nil {
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
	rows, err := rl.Reflog(ref)
	if err != nil {
		return nil, fmt.Errorf("reflog of %s: %w", ref, err)
	}
	want := eventOIDs(events)
	seen := map[objects.OID]bool{}
	for i, n := len(rows)-1, 0; i >= 0 && n < maxReflogScan; i, n = i-1, n+1 {
		id := rows[i].New
		if id.Type != objects.TypeRun || seen[id] {
			continue
		}
		seen[id] = true
		o, err := g.Get(ctx, id)
		if errors.Is(err, objects.ErrNotFound) {
			continue // the reflog is history, not authority (SPEC §2.6)
		}
		if err != nil {
			return nil, fmt.Errorf("reflog of %s: run %s: %w", ref, id, err)
		}
		snap, err := RunFromObject(o)
		if err != nil {
			return nil, err
		}
		if sameOIDs(snap.EventIDs(), want) {
			snap.Events = events
			snap.Reindex()
			return snap, nil
		}
	}
	return nil, nil
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
