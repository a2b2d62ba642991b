package plumbing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// Bounds of REV~N: N is at most MaxAncestorSteps (the SPEC's graph
// traversal bound, §1.6), and at most maxReflogScan reflog rows are read
// looking for a stored run that holds the result.
const (
	// MaxAncestorSteps bounds the total N of a revision's ~N suffixes.
	MaxAncestorSteps = 10000
	maxReflogScan    = 1000
)

// NotStoredError reports REV~N naming a run that no stored run object
// holds: the run Run (reached through Ref, if any) restricted to the
// ancestor closure of Event, its event N first parents back from its
// newest. Such a run can be derived (porcelain/runs does, for show, log,
// diff and rev-parse) but not handed to a verb that needs a stored object.
// It wraps ErrNotStored.
type NotStoredError struct {
	Revision string
	Run      objects.OID
	Ref      string
	Event    objects.OID
}

// Error names the run and event, and how to store the run.
func (e *NotStoredError) Error() string {
	src := e.Ref
	if src == "" {
		src = e.Run.String()
	}
	return fmt.Sprintf("revision %q names the run %s as of event %s, which no stored run object holds (tine fork %s --from %s stores it under a new ref): %v",
		e.Revision, src, e.Event, src, e.Event, ErrNotStored)
}

// Unwrap makes errors.Is(err, ErrNotStored) hold.
func (e *NotStoredError) Unwrap() error { return ErrNotStored }

// SplitAncestry splits "BASE~N~M..." into BASE and N+M ("~" alone is ~1).
// A revision without "~" is returned whole with 0 steps.
func SplitAncestry(rev string) (string, int, error) {
	if len(rev) > MaxRevisionLen {
		return "", 0, fmt.Errorf("revision %.40q...: %w", rev, ErrBadRevision)
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
				return "", 0, fmt.Errorf("revision %q: want REV~N with a decimal N: %w", rev, ErrBadRevision)
			}
			n = v
		}
		total += n
		if total > MaxAncestorSteps {
			return "", 0, fmt.Errorf("revision %q: at most ~%d: %w", rev, MaxAncestorSteps, ErrBadRevision)
		}
		base = base[:i]
	}
	if base == "" {
		return "", 0, fmt.Errorf("revision %q names nothing before ~: %w", rev, ErrBadRevision)
	}
	return base, total, nil
}

// resolveAncestry resolves a revision holding "~": the base must name a
// run; the result is the stored run AncestorRun finds, else a
// *NotStoredError. explain is resolveRevision's, for the base.
func (r *Repo) resolveAncestry(ctx context.Context, rev string, explain bool) (objects.OID, string, error) {
	base, steps, err := SplitAncestry(rev)
	if err != nil {
		return objects.OID{}, "", err
	}
	id, ref, err := r.resolveRevision(ctx, base, explain)
	if err != nil || steps == 0 {
		return id, ref, err
	}
	if id.Type != objects.TypeRun {
		return objects.OID{}, "", fmt.Errorf("revision %q: %s is a %s; ~N steps back through a run's events: %w", rev, id, id.Type, ErrBadRevision)
	}
	o, err := r.objs.Get(ctx, id)
	if err != nil {
		return objects.OID{}, "", fmt.Errorf("run %s: %w", id, err)
	}
	got, err := AncestorRun(ctx, r, r.objs, rev, o, ref, steps)
	if err != nil {
		return objects.OID{}, "", err
	}
	return got.ID, ref, nil
}

// AncestorRun finds (and returns, read through g) the stored run that
// REV~steps names, where run is the
// run object REV named (through ref, "" for an object name): from the
// run's newest event (the last of its list) it follows first parents steps
// times to event E, reading only those events through g; then it looks in
// ref's reflog, newest row first, for a run object whose tips are exactly
// [E] and whose events are E last and otherwise events of run before E, in
// run's order. Such a run (the SPEC §1.5 graph rules close a run under its
// links, and every event of a run with one tip is that tip's ancestor)
// holds exactly E's ancestor closure, so no other event is read. When none
// does, the error is a *NotStoredError naming E. Walking past the first
// event is ErrUnknownRevision.
func AncestorRun(ctx context.Context, r *Repo, g objects.Getter, rev string, run *objects.Object, ref string, steps int) (*objects.Object, error) {
	events, err := payloadOIDs(run.Value, "events")
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", run.ID, err)
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("revision %q: run %s has no events: %w", rev, run.ID, ErrUnknownRevision)
	}
	pos := make(map[string]int, len(events))
	for i, s := range events {
		pos[s] = i
	}
	cur := events[len(events)-1]
	for i := 0; i < steps; i++ {
		id, err := objects.ParseOID(cur)
		if err != nil {
			return nil, fmt.Errorf("run %s: event %q: %w", run.ID, cur, err)
		}
		o, err := g.Get(ctx, id)
		if err != nil && Absent(id, err) == nil {
			// A shallow boundary (SPEC §2.7): its parents are unknown here.
			return nil, fmt.Errorf("revision %q: event %s of run %s is not stored: %w", rev, id, run.ID, ErrBeyondShallow)
		}
		if err != nil {
			return nil, fmt.Errorf("event %s, run %s: %w", id, run.ID, Absent(id, err))
		}
		parents, err := payloadOIDs(o.Value, "parent_ids")
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", id, err)
		}
		if len(parents) == 0 {
			return nil, fmt.Errorf("revision %q: run %s has only %d event(s) before its newest along first parents: %w",
				rev, run.ID, i, ErrUnknownRevision)
		}
		if _, ok := pos[parents[0]]; !ok {
			return nil, fmt.Errorf("event %s links parent %s outside run %s: %w", id, parents[0], run.ID, ErrUnknownRevision)
		}
		cur = parents[0]
	}
	e, _ := objects.ParseOID(cur)
	if ref != "" {
		o, err := r.reflogRunAt(ctx, g, ref, cur, pos, run.ID)
		if err != nil || o != nil {
			return o, err
		}
	}
	return nil, &NotStoredError{Revision: rev, Run: run.ID, Ref: ref, Event: e}
}

// reflogRunAt returns the newest run in ref's reflog whose only tip is
// event tip and whose events are tip last and events of the source run
// (positions pos) before it in the source's order; nil if none.
// The source run itself (src, whose newest event is not tip) is not read
// again.
func (r *Repo) reflogRunAt(ctx context.Context, g objects.Getter, ref, tip string, pos map[string]int, src objects.OID) (*objects.Object, error) {
	return ReflogRun(ctx, g, r.refs, ref, src, func(o *objects.Object) (bool, error) {
		return holdsClosureOf(o.Value, tip, pos), nil
	})
}

// ReflogRun returns the newest run object in ref's reflog (at most
// maxReflogScan rows, newest first) for which match reports true, read
// through g; nil when none does. skip (which may be the zero OID) is not
// read. A run the store no longer holds is passed over: the reflog is
// history, not authority (SPEC §2.6).
func ReflogRun(ctx context.Context, g objects.Getter, rl interface {
	Reflog(name string) ([]refs.ReflogEntry, error)
}, ref string, skip objects.OID, match func(*objects.Object) (bool, error)) (*objects.Object, error) {
	rows, err := rl.Reflog(ref)
	if err != nil {
		return nil, fmt.Errorf("reflog of %s: %w", ref, err)
	}
	seen := map[objects.OID]bool{skip: true}
	for i, n := len(rows)-1, 0; i >= 0 && n < maxReflogScan; i, n = i-1, n+1 {
		id := rows[i].New
		if id.Type != objects.TypeRun || seen[id] {
			continue
		}
		seen[id] = true
		o, err := g.Get(ctx, id)
		if errors.Is(err, objects.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reflog of %s: run %s: %w", ref, id, err)
		}
		ok, err := match(o)
		if err != nil {
			return nil, err
		}
		if ok {
			return o, nil
		}
	}
	return nil, nil
}

// holdsClosureOf reports whether run payload v has tips [tip] and events
// ending in tip, each earlier one an event of the source before tip, in
// the source's order.
func holdsClosureOf(v objects.Value, tip string, pos map[string]int) bool {
	tips, err := payloadOIDs(v, "tips")
	if err != nil || len(tips) != 1 || tips[0] != tip {
		return false
	}
	events, err := payloadOIDs(v, "events")
	if err != nil || len(events) == 0 || events[len(events)-1] != tip {
		return false
	}
	last := -1
	for _, s := range events {
		p, ok := pos[s]
		if !ok || p <= last {
			return false
		}
		last = p
	}
	return true
}

// payloadOIDs returns the strings of payload member key, an array of oid
// strings (absent or null: none).
func payloadOIDs(v objects.Value, key string) ([]string, error) {
	l, ok := v.Get(key)
	if !ok || l.Kind == objects.KindNull {
		return nil, nil
	}
	if l.Kind != objects.KindArray {
		return nil, fmt.Errorf("%s is not a list", key)
	}
	out := make([]string, len(l.Array))
	for i, e := range l.Array {
		if e.Kind != objects.KindString {
			return nil, fmt.Errorf("%s[%d] is not an oid", key, i)
		}
		out[i] = e.Str
	}
	return out, nil
}
