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
// error is returned only for callers that report it.
//
// Run appends do not call it (afterAppend).
func RefreshIndex(ctx context.Context, r *plumbing.Repo) error {
	_, err := plumbing.OpenIndex(r).Update(ctx)
	return err
}

// afterAppend is the one place a run append (record, import, append,
// resume: commitAppend) updates what follows its ref's move from prev (the
// zero oid for a new run) to run, at a cost of the append, not of the
// run's length or the repository's size:
//
//   - the current run's mark (tine status) follows tine's own appends;
//     failing to advance it only makes status report a move, so the append
//     that succeeded is not failed for it;
//   - the derived catalog is left as it is: it is one file, decoded and
//     rewritten whole by an update (O(every indexed event)), which would
//     make each append cost the repository's size. The next reader (tine
//     runs, search, candidates, a gate's evidence cache, a promotion check)
//     finds its ref snapshot differs from the refs and updates it,
//     reading only the new events (index package, "Trust and staleness").
//
// Derived data that can be updated in the append's own cost belongs here.
func afterAppend(ctx context.Context, r *plumbing.Repo, ref string, prev objects.OID, run *objects.Object) {
	_ = ctx
	_ = r.NoteRefMove(ref, prev, run.ID)
}
