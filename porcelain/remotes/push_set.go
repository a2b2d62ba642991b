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
// client does the same); the associations that closure cannot cover are
// then asked about in one request when the transport is a remote.Holder
// (see withoutHeld), else sent again, which is redundant but harmless.
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
		if h, ok := c.Transport.(remote.Holder); ok {
			return withoutHeld(ctx, src, h, wants, known)
		}
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: wants, Depth: plumbing.NoDepth, Has: has})
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	return set, nil
}

// withoutHeld is the transfer closure of wants minus known and minus the
// associations h says the remote already stores. The closure of the
// remote's refs never covers associations, so without asking, every push
// of a run would send all its evaluations and attestations again. The
// remote holds the link closure of what it stores (it is never shallow),
// so the walk is redone with the held ones known, to stop there. When the
// question fails for another reason than the push's end, the
// associations are sent: installing one twice is harmless.
func withoutHeld(ctx context.Context, src plumbing.TransferSource, h remote.Holder, wants []objects.OID, known map[objects.OID]bool) (*plumbing.TransferSet, error) {
	has := func(_ context.Context, id objects.OID) (bool, error) { return known[id], nil }
	opt := plumbing.TransferOptions{Wants: wants, Depth: plumbing.NoDepth, Has: has}
	set, err := plumbing.TransferClosure(ctx, src, opt)
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	var assoc []objects.OID
	for _, id := range set.IDs {
		if id.Type == objects.TypeAttestation || id.Type == objects.TypeAnnotation {
			assoc = append(assoc, id)
		}
	}
	if len(assoc) == 0 {
		return set, nil
	}
	held, err := h.Held(ctx, assoc)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return set, nil
	}
	if len(held) == 0 {
		return set, nil
	}
	for _, id := range held {
		known[id] = true
	}
	if set, err = plumbing.TransferClosure(ctx, src, opt); err != nil {
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
