package httpserve

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// checkClosure refuses (404) moving ref name from old to target unless
// everything target reaches by links is stored in the tenant or held by
// its refs (remote.HistoryCheck, the check a push to a path remote runs
// too): a stored target alone is not enough, since an object written into
// the tenant's repository another way (a local tine, a restored backup, a
// damaged disk) may lack part of its history, and a ref naming it would
// hand every fetcher a run it cannot read.
//
// The walk costs the new work, as a push's own walk does (spec §9 push
// step 4: the closure of the remote's old value is known): an update
// stops at old, a creation at what the tenant's refs name. The objects a
// push just installed are read from memory (recentObjects), each still
// confirmed stored. The caller skips the check for a stale old (the ref
// does not move).
func (s *Server) checkClosure(ctx context.Context, tenant, name string, r *plumbing.Repo, old objects.OID, target *objects.Object) *httpError {
	c := remote.HistoryCheck{Objects: r.Objects(), Refs: r.Refs(), Recent: s.recent.getter(tenant)}
	err := c.Check(ctx, name, old, target)
	if err == nil {
		return nil
	}
	var m *remote.MissingHistoryError
	if errors.As(err, &m) {
		return notFound(fmt.Sprintf("ref %s: %s reaches %s through %s, and the tenant does not store it; push that history first", name, target.ID, m.Missing, m.From))
	}
	return internal(err.Error())
}
