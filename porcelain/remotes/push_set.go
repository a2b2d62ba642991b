package remotes

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// pushSet computes what a push sends: the transfer closure of wants (runs
// plus associations) minus what the remote holds. A transport that can
// probe the remote (remote.Prober) is asked object by object, so the walk
// stops at what the remote has. Otherwise the remote is taken to hold the
// link closure of its current ref values that are stored here (OpenTine's
// client does the same); associations are always sent, since the local
// repository cannot know which the remote lacks, and installing one twice
// is harmless.
func pushSet(ctx context.Context, r *plumbing.Repo, c *Connection, wants []objects.OID, current map[string]objects.OID) (*plumbing.TransferSet, error) {
	src, err := plumbing.RepoTransferSource(ctx, r)
	if err != nil {
		return nil, err
	}
	var has func(context.Context, objects.OID) (bool, error)
	if p, ok := c.Transport.(remote.Prober); ok {
		has = func(ctx context.Context, id objects.OID) (bool, error) {
			missing, err := p.Missing(ctx, []objects.OID{id})
			return len(missing) == 0, err
		}
	} else {
		known, err := knownRemote(ctx, r, src, current)
		if err != nil {
			return nil, err
		}
		has = func(_ context.Context, id objects.OID) (bool, error) { return known[id], nil }
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: wants, Depth: plumbing.NoDepth, Has: has})
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	return set, nil
}

// knownRemote is the link closure (no associations) of the remote's ref
// values that r stores.
func knownRemote(ctx context.Context, r *plumbing.Repo, src plumbing.TransferSource, current map[string]objects.OID) (map[objects.OID]bool, error) {
	var roots []objects.OID
	for _, id := range current {
		ok, err := r.Objects().Has(ctx, id)
		if err != nil {
			return nil, err
		}
		if ok {
			roots = append(roots, id)
		}
	}
	known := map[objects.OID]bool{}
	if len(roots) == 0 {
		return known, nil
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: roots, Depth: plumbing.NoDepth, NoAssociations: true})
	if err != nil {
		return nil, fmt.Errorf("push: what the remote holds: %w", err)
	}
	for _, id := range set.IDs {
		known[id] = true
	}
	for _, id := range set.Boundary {
		known[id] = true
	}
	return known, nil
}
