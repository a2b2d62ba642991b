package runs

import (
	"context"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// RefreshIndex brings the derived catalog up to date after a write, so
// queries (candidates, promotion checks, the gate cache) find the new
// objects without a rebuild. The catalog is derived data, never the source
// of truth: a failure loses nothing, and the next query detects the stale
// catalog and updates or rebuilds it (index package). So a writer whose
// objects and ref are already durable never fails because of it; the
// error is returned only for callers that report it. The history index
// (UpdateHistory) is refreshed too: each ref's new run costs only the
// events it adds to the run it extends. Not in a shallow repository: its
// runs with events beyond the boundary are never indexed, and each write
// would read them again to find that out; readers index the others.
//
// Run appends do not call it (afterAppend).
func RefreshIndex(ctx context.Context, r *plumbing.Repo) error {
	_, err := plumbing.OpenIndex(r).Update(ctx)
	if sh, serr := r.Refs().ReadShallow(); serr == nil && len(sh) == 0 {
		if _, herr := UpdateHistory(ctx, r); err == nil {
			err = herr
		}
	}
	return err
}

// afterAppend is the one place a run append (record, import, append,
// resume: commitAppend) updates what follows its ref's move from prev (nil
// for a new run) to the run objs ends with, objs being what the
// append wrote (blobs and events, then the run, whose body is not parsed:
// objects.SplitRunBody or Object.WithValue read it), at a cost of the
// append, not of the run's length or the repository's size:
//
//   - the current run's mark (tine status) follows tine's own appends;
//     failing to advance it only makes status report a move, so the append
//     that succeeded is not failed for it;
//   - the history index gets the new run as prev's run plus the events the
//     append wrote (indexAppend), in O(those events);
//   - the derived catalog is left as it is: it is one file, decoded and
//     rewritten whole by an update (O(every indexed event)), which would
//     make each append cost the repository's size. The next reader (tine
//     runs, search, candidates, a gate's evidence cache, a promotion check)
//     finds its ref snapshot differs from the refs and updates it,
//     reading only the new events (index package, "Trust and staleness").
//
// Derived data that can be updated in the append's own cost belongs here.
func afterAppend(ctx context.Context, r *plumbing.Repo, ref string, prev *objects.Object, prevBody *objects.RunBody, objs []*objects.Object) {
	var prevID objects.OID
	if prev != nil {
		prevID = prev.ID
	}
	_ = r.NoteRefMove(ref, prevID, objs[len(objs)-1].ID)
	indexAppend(ctx, r, prev, prevBody, objs[len(objs)-1], objs)
}
