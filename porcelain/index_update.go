package porcelain

import (
	"context"

	"github.com/tinehq/tine/plumbing"
)

// refreshIndex brings the derived catalog up to date after a write moved a
// ref, so queries (candidates, promotion checks, the gate cache) find the
// new run without a rebuild. The catalog is derived data, never the source
// of truth: a failure here loses nothing, and the next query detects the
// stale catalog and updates or rebuilds it (index package), so the error
// is deliberately not returned to a writer whose objects and ref are
// already durable.
func refreshIndex(ctx context.Context, r *plumbing.Repo) {
	_, _ = plumbing.OpenIndex(r).Update(ctx)
}
