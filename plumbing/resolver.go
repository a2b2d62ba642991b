package plumbing

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// storeResolver is the objects.Resolver used by writes: objects come from
// pending (objects about to be written in the same call) or the store, and
// shallow is the repository's declared shallow boundary (SPEC §2.7: a link
// to a shallow oid satisfies the existence rule).
type storeResolver struct {
	ctx     context.Context
	store   objects.Getter
	pending map[objects.OID]*objects.Object
	shallow map[objects.OID]bool
}

// Resolve returns the object, (nil, nil) when it is absent, or the store's
// error for a corrupt one.
func (s *storeResolver) Resolve(id objects.OID) (*objects.Object, error) {
	if o, ok := s.pending[id]; ok {
		return o, nil
	}
	o, err := s.store.Get(s.ctx, id)
	if errors.Is(err, objects.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Shallow reports whether id is on the shallow boundary.
func (s *storeResolver) Shallow(id objects.OID) bool { return s.shallow[id] }

// writeValidated validates objs in order against the store, the shallow
// set and the objects before them, then stores them all. It returns, per
// object, whether it is stored.
func writeValidated(ctx context.Context, r *Repo, objs []*objects.Object) ([]bool, error) {
	// Under the writers' lock before validating: a link target checked
	// present cannot then be pruned before the object linking to it lands.
	if err := r.LockWriters(ctx); err != nil {
		return nil, err
	}
	shallow, err := r.shallowSet()
	if err != nil {
		return nil, err
	}
	res := &storeResolver{ctx: ctx, store: r.objs, pending: map[objects.OID]*objects.Object{}, shallow: shallow}
	for _, o := range objs {
		if _, err := objects.Validate(o, res); err != nil {
			return nil, fmt.Errorf("%s: %w", o.ID, err)
		}
		res.pending[o.ID] = o
	}
	// One durable Put at a time, in input order: a crash then never leaves
	// an object whose links were not yet written (fsck would report it).
	done := make([]bool, len(objs))
	for i, o := range objs {
		if err := r.objs.Put(ctx, o); err != nil {
			return done, fmt.Errorf("store %s: %w", o.ID, err)
		}
		done[i] = true
	}
	return done, nil
}

// Present reports existence without reading (objects.PresenceChecker), as
// the reference checks links with has().
func (s *storeResolver) Present(id objects.OID) (bool, error) {
	if _, ok := s.pending[id]; ok {
		return true, nil
	}
	if h, ok := s.store.(interface {
		Has(context.Context, objects.OID) (bool, error)
	}); ok {
		return h.Has(s.ctx, id)
	}
	o, err := s.Resolve(id)
	return o != nil, err
}
