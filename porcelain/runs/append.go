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
// h.expect by compare-and-swap, and afterAppend updates what follows the
// move (the current run's mark and the history index; not the catalog,
// which the next reader brings up to date).
func commitAppend(ctx context.Context, r *plumbing.Repo, h *head, actor string, objs []*objects.Object) error {
	if err := r.WriteAppend(ctx, objs, h.obj); err != nil {
		return err
	}
	if actor == "" {
		actor = DefaultActor
	}
	run := objs[len(objs)-1]
	if err := r.Refs().UpdateExpect(ctx, h.ref, run.ID, h.expect, actor); err != nil {
		return fmt.Errorf("move %s to %s: %w", h.ref, run.ID, err)
	}
	afterAppend(ctx, r, h.ref, h.obj, h.body, objs)
	return nil
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
