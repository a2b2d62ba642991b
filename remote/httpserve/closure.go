package httpserve

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// checkClosure refuses (404) moving ref name from old to target unless
// everything target reaches by links is stored in the tenant: a run's
// events, their parents, blobs and the rest, as a pack install requires
// of every link leaving the pack (objects.InstallPackFrame). A stored
// target alone is not enough: an object written into the tenant's
// repository another way (a local tine, a restored backup, a damaged
// disk) may lack part of its history, and a ref naming it would hand
// every fetcher a run it cannot read.
//
// The walk costs the new work, as a push's own walk does (spec §9 push
// step 4: the closure of the remote's old value is known): old is the
// value the compare-and-swap requires, so if the ref moves at all it
// moves from old, which this check let in before; old and its links are
// held, and the walk stops there. A run that extends old's run thus reads
// only the appended events. A stale old costs nothing more: the ref does
// not move. The objects a push just installed are read from memory
// (recentObjects), each still confirmed stored. An update to old itself
// moves nothing and checks nothing.
func (s *Server) checkClosure(ctx context.Context, tenant, name string, st objects.Store, old objects.OID, target *objects.Object) *httpError {
	if old == target.ID {
		return nil // the ref stays where it is: nothing new to check
	}
	w := &closureWalk{ctx: ctx, store: st, recent: s.recent.getter(tenant), seen: map[objects.OID]bool{target.ID: true}}
	if !old.IsZero() {
		if herr := w.hold(name, old); herr != nil {
			return herr
		}
	}
	if err := w.walk(target); err != nil {
		var m *missingError
		if errors.As(err, &m) {
			return notFound(fmt.Sprintf("ref %s: %s reaches %s through %s, and the tenant does not store it; push that history first", name, target.ID, m.id, m.from))
		}
		return internal(fmt.Sprintf("ref %s: history of %s: %v", name, target.ID, err))
	}
	return nil
}

// closureWalk is one checkClosure walk: seen holds what is queued, checked
// or held.
type closureWalk struct {
	ctx    context.Context
	store  objects.Store
	recent objects.Getter
	seen   map[objects.OID]bool
	stack  []closureItem
}

// closureItem is a queued link and the object it leaves from.
type closureItem struct{ id, from objects.OID }

// missingError is a link to an object the tenant does not store.
type missingError struct{ id, from objects.OID }

func (e *missingError) Error() string {
	return fmt.Sprintf("%s links to %s, which is not stored", e.from, e.id)
}

// hold marks old and its links as held. An old value the tenant does not
// store is not the ref's value: the compare-and-swap will refuse.
func (w *closureWalk) hold(name string, old objects.OID) *httpError {
	w.seen[old] = true
	if old.Type == objects.TypeBlob {
		return nil
	}
	o, err := w.get(old)
	if errors.Is(err, objects.ErrNotFound) {
		return nil
	}
	if err == nil {
		var links []objects.OID
		if links, err = objects.Links(o); err == nil {
			for _, l := range links {
				w.seen[l] = true
			}
			return nil
		}
	}
	return internal(fmt.Sprintf("ref %s: old value %s: %v", name, old, err))
}

// walk checks every object root reaches that is not held: blobs by
// presence, the others read (verified) for their own links.
func (w *closureWalk) walk(root *objects.Object) error {
	if err := w.push(root); err != nil {
		return err
	}
	for len(w.stack) > 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		it := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if it.id.Type == objects.TypeBlob {
			ok, err := w.store.Has(w.ctx, it.id)
			if err != nil {
				return fmt.Errorf("%s: %w", it.id, err)
			}
			if !ok {
				return &missingError{id: it.id, from: it.from}
			}
			continue
		}
		o, err := w.get(it.id)
		if errors.Is(err, objects.ErrNotFound) {
			return &missingError{id: it.id, from: it.from}
		}
		if err != nil {
			return err
		}
		if err := w.push(o); err != nil {
			return err
		}
	}
	return nil
}

// push queues o's links not yet seen.
func (w *closureWalk) push(o *objects.Object) error {
	links, err := objects.Links(o)
	if err != nil {
		return err
	}
	for _, l := range links {
		if !w.seen[l] {
			w.seen[l] = true
			w.stack = append(w.stack, closureItem{id: l, from: o.ID})
		}
	}
	return nil
}

// get returns id from memory when the store still holds it, else reads
// it from the store.
func (w *closureWalk) get(id objects.OID) (*objects.Object, error) {
	if o, err := w.recent.Get(w.ctx, id); err == nil {
		ok, err := w.store.Has(w.ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, objects.NotFound(id)
		}
		return o, nil
	}
	return w.store.Get(w.ctx, id)
}
