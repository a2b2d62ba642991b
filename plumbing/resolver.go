package plumbing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// WriteResolver is the objects.Resolver every write validates against:
// objects come from pending (objects about to be written in the same call)
// or the store, and shallow is the repository's declared shallow boundary
// (SPEC §2.7: a link to a shallow oid satisfies the existence rule).
type WriteResolver struct {
	ctx     context.Context
	store   objects.Getter
	pending map[objects.OID]*objects.Object
	shallow map[objects.OID]bool
}

// NewWriteResolver returns a resolver over r's store and shallow set. It
// takes the writers' lock first (this handle keeps it until Close), so a
// link target it reports present cannot be pruned before the object
// linking to it lands.
func (r *Repo) NewWriteResolver(ctx context.Context) (*WriteResolver, error) {
	if err := r.LockWriters(ctx); err != nil {
		return nil, err
	}
	shallow, err := r.shallowSet()
	if err != nil {
		return nil, fmt.Errorf("shallow file: %w", err)
	}
	return &WriteResolver{ctx: ctx, store: r.objs, pending: map[objects.OID]*objects.Object{}, shallow: shallow}, nil
}

// Resolve returns the object, (nil, nil) when it is absent, or the store's
// error for a corrupt one.
func (s *WriteResolver) Resolve(id objects.OID) (*objects.Object, error) {
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

// HasShallowBoundary reports whether the repository declares any shallow
// oid: its runs may then lack events, and a run-graph check must not
// assume a run it builds on was checked complete (objects.CheckRunAppend).
func (s *WriteResolver) HasShallowBoundary() bool { return len(s.shallow) > 0 }

// Shallow reports whether id is on the shallow boundary.
func (s *WriteResolver) Shallow(id objects.OID) bool { return s.shallow[id] }

// Present reports existence without reading (objects.PresenceChecker), as
// the reference checks links with has().
func (s *WriteResolver) Present(id objects.OID) (bool, error) {
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

// WriteCheck is a rule a write applies to one object after objects.Validate
// and before anything is stored, e.g. objects.CheckAnnotationChain.
type WriteCheck func(o *objects.Object, res objects.Resolver) error

// WriteValidated is the one write path of objects: it validates objs in
// order against the store, the shallow set and the objects before them
// (each may link the ones before it), applies check to each when it is not
// nil, then stores them one durable Put at a time in input order, so a
// crash never leaves an object whose links were not yet written. It returns,
// per object, whether it is stored; on a validation error nothing is.
func (r *Repo) WriteValidated(ctx context.Context, objs []*objects.Object, check WriteCheck) ([]bool, error) {
	res, err := r.NewWriteResolver(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if _, err := objects.Validate(o, res); err != nil {
			return nil, nameObject(o, err)
		}
		if check != nil {
			if err := check(o, res); err != nil {
				return nil, err
			}
		}
		res.pending[o.ID] = o
	}
	done := make([]bool, len(objs))
	for i, o := range objs {
		if err := r.objs.Put(ctx, o); err != nil {
			return done, fmt.Errorf("store %s: %w", o.ID, err)
		}
		done[i] = true
	}
	return done, nil
}

// nameObject prefixes err with o's type and oid, unless the message
// already starts with them (objects.Validate names o for some refusals),
// so the line does not say "event X: event X: ...".
func nameObject(o *objects.Object, err error) error {
	prefix := fmt.Sprintf("%s %s: ", o.Type, o.ID)
	if strings.HasPrefix(err.Error(), prefix) {
		return err
	}
	return fmt.Errorf("%s%w", prefix, err)
}
