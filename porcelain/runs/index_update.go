package runs

import (
	"context"

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
func RefreshIndex(ctx context.Context, r *plumbing.Repo) error {
	_, err := plumbing.OpenIndex(r).Update(ctx)
	if sh, serr := r.Refs().ReadShallow(); serr == nil && len(sh) == 0 {
		if _, herr := UpdateHistory(ctx, r); err == nil {
			err = herr
		}
	}
	return err
}
