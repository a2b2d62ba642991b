package runs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// DefaultRef is the ref record and import write when none is named.
const DefaultRef = "heads/main"

// DefaultActor is the reflog actor of porcelain writes.
const DefaultActor = plumbing.DefaultActor

// Commit writes objs through plumbing's one write path (Repo.WriteValidated:
// validated in order, each may link the ones before it, then stored one at a
// time in that order, so links are durable before the objects naming them),
// and finally moves ref from expect to the last object (the run) by
// compare-and-swap. A concurrent move of the ref is a
// *refs.StaleError; commit retries nothing (tine record retries its append,
// never its command: appendRecorded). Objects already written stay: they
// are unreachable garbage, never a corrupt state (ARCHITECTURE §6). The
// derived catalog is refreshed last (refreshIndex).
func Commit(ctx context.Context, r *plumbing.Repo, ref string, expect refs.Expect, actor string, objs []*objects.Object) error {
	if _, err := r.WriteValidated(ctx, objs, nil); err != nil {
		return err
	}
	if actor == "" {
		actor = DefaultActor
	}
	run := objs[len(objs)-1]
	if err := r.Refs().UpdateExpect(ctx, ref, run.ID, expect, actor); err != nil {
		return fmt.Errorf("move %s to %s: %w", ref, run.ID, err)
	}
	_ = RefreshIndex(ctx, r) // derived data: see refreshIndex
	return nil
}

// commitAppend is Commit for objs (blobs, events, then the run) that
// extend h's run: Repo.WriteAppend validates the new objects and the
// run-graph delta against h's run object, never its older events, and
// writes the new objects in batches, the run last; then h.ref moves from
// h.expect by compare-and-swap, the current run's mark follows a move from
// the value it holds (plumbing.Repo.NoteRefMove) and the catalog is
// refreshed, as in Commit.
func commitAppend(ctx context.Context, r *plumbing.Repo, h *head, actor string, objs []*objects.Object) error {
	var base *objects.Object
	if h.run != nil {
		base = h.run.Object
	}
	if err := r.WriteAppend(ctx, objs, base); err != nil {
		return err
	}
	if actor == "" {
		actor = DefaultActor
	}
	run := objs[len(objs)-1]
	if err := r.Refs().UpdateExpect(ctx, h.ref, run.ID, h.expect, actor); err != nil {
		return fmt.Errorf("move %s to %s: %w", h.ref, run.ID, err)
	}
	var prev objects.OID
	if h.run != nil {
		prev = h.run.ID
	}
	// The current run's mark (tine status) follows tine's own appends;
	// failing to advance it only makes status report a move, so the
	// append that succeeded is not failed for it.
	_ = r.NoteRefMove(h.ref, prev, run.ID)
	indexAppend(ctx, r, base, run, objs) // derived data, before RefreshIndex finds the run missing
	_ = RefreshIndex(ctx, r)             // derived data: see refreshIndex
	return nil
}

// head is the state of a ref a write builds on.
type head struct {
	ref    string
	run    *Run // nil when the ref does not exist
	expect refs.Expect
}

// readHead reads ref and, when it exists, its run payload, checked as
// checkBase checks it: the run object and its tips, never the older events
// (an append needs only the lists and the tips it links to).
func readHead(ctx context.Context, r *plumbing.Repo, ref string) (*head, error) {
	id, err := r.Refs().Read(ctx, ref)
	if errors.Is(err, refs.ErrNotFound) {
		return &head{ref: ref, expect: refs.ExpectAbsent}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ref %s: %w", ref, err)
	}
	o, err := r.Objects().Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("ref %s: run %s: %w", ref, id, err)
	}
	run, err := RunFromObject(o)
	if err != nil {
		return nil, fmt.Errorf("ref %s: %w", ref, err)
	}
	h := &head{ref: ref, run: run, expect: refs.ExpectValue(id)}
	if err := checkBase(ctx, r.Objects(), h); err != nil {
		return nil, err
	}
	return h, nil
}

// tips returns the current tips (nil for a new run).
func (h *head) tips() []objects.OID {
	if h.run == nil {
		return nil
	}
	return h.run.Tips
}

// checkAppendable refuses to extend a run that is not running: a paused,
// completed or failed run is resumed first, explicitly.
func (h *head) checkAppendable() error {
	if h.run != nil && h.run.Status != StatusRunning {
		return fmt.Errorf("run %s at %s is %s: %w; run tine resume %s first", h.run.ID, h.ref, h.run.Status, ErrNotRunning, h.ref)
	}
	return nil
}

// appendedRun builds the run that is h's run plus newEvents (each given
// with its parent_ids), in order, with status. A new run gets created_at
// from now. extra members (the manifests of a recorded command's code
// state) replace the base run's members of the same key.
func (h *head) appendedRun(a objects.Algo, newEvents []*Event, status string, now time.Time, extra ...objects.Member) (*objects.Object, error) {
	var base objects.Value
	var events, roots, tips []objects.OID
	if h.run != nil {
		base = h.run.Value
		events = append(events, h.run.EventIDs()...)
		roots = append(roots, h.run.Roots...)
		tips = append(tips, h.run.Tips...)
	}
	set := []objects.Member{}
	if h.run == nil {
		set = append(set, objects.Member{Key: "created_at", Value: UnixSeconds(now)})
	}
	for _, e := range newEvents {
		events = append(events, e.ID)
		if len(e.Parents) == 0 {
			roots = append(roots, e.ID)
		}
		tips = removeOIDs(tips, e.Parents)
		tips = append(tips, e.ID)
	}
	if status == "" {
		status = StatusRunning
	}
	set = append(set,
		objects.Member{Key: "events", Value: OIDValues(events)},
		objects.Member{Key: "roots", Value: OIDValues(roots)},
		objects.Member{Key: "tips", Value: OIDValues(tips)},
		objects.Member{Key: "status", Value: objects.String(status)},
	)
	set = append(set, extra...)
	o, err := objects.NewJSONObject(a, objects.TypeRun, 1, derivePayload(base, set, legacyFields))
	if err != nil {
		return nil, fmt.Errorf("build run for %s: %w", h.ref, err)
	}
	return o, nil
}

// removeOIDs returns ids without the members of drop.
func removeOIDs(ids, drop []objects.OID) []objects.OID {
	out := ids[:0:0]
	for _, id := range ids {
		keep := true
		for _, d := range drop {
			if id == d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, id)
		}
	}
	return out
}

// UnixSeconds is t as a float of Unix seconds with millisecond precision,
// OpenTine's created_at form (a float epoch).
func UnixSeconds(t time.Time) objects.Value {
	ms := t.UnixMilli()
	if ms%1000 == 0 {
		return objects.Int(ms / 1000)
	}
	return objects.Float(math.Round(float64(ms)) / 1000)
}

// WritableRef normalizes a ref a porcelain verb writes a run to: heads/
// and experiments/ only (promotions move through tine promote's policy).
// A short name such as "main" names an existing ref (heads/main).
func WritableRef(ctx context.Context, r *plumbing.Repo, name string) (string, error) {
	ref, err := r.RefName(ctx, name)
	var past *plumbing.PastValueError
	if errors.As(err, &past) {
		return "", err // it already says what to give
	}
	if err != nil {
		return "", fmt.Errorf("%w (give a full name such as heads/NAME or experiments/NAME)", err)
	}
	switch refs.NamespaceOf(ref) {
	case refs.NamespaceHeads, refs.NamespaceExperiments:
		return ref, nil
	}
	return "", fmt.Errorf("ref %s: %w", ref, ErrNotRunRef)
}
