package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// Bounds of the creation lookup (HistoryCheck.Check): a run target with
// fewer than minHeldLookup events left to check is walked without reading
// other runs, since its walk costs less than one large run object; and
// the runs read list at most heldLookupFactor times as many events as
// were left, each run read counting heldLookupFactor events besides those
// it lists. Reading a run object costs well under a microsecond per event
// it lists, where the walk reads each event and confirms each blob
// (about 9 µs an event), and the read itself about what one event's costs,
// so the lookup costs a bounded fraction of the walk it may spare, even
// where the runs list few events or none.
const (
	minHeldLookup    = 64
	heldLookupFactor = 8
)

// historyWalk is one HistoryCheck walk: seen holds what is queued, checked
// or held; tips are the values of existing refs, held when reached.
type historyWalk struct {
	ctx    context.Context
	store  objects.Store
	recent objects.Getter
	stored func(objects.OID) bool
	links  LinkMemo
	seen   map[objects.OID]bool
	tips   map[objects.OID]bool
	stack  []historyItem
}

// historyItem is a queued link and the object it leaves from.
type historyItem struct{ id, from objects.OID }

// holdOld marks old and its links as held. An old value the repository
// does not store is not the ref's value: the compare-and-swap will refuse.
func (w *historyWalk) holdOld(old objects.OID) error {
	w.seen[old] = true
	if old.Type == objects.TypeBlob {
		return nil
	}
	o, err := w.get(old)
	if errors.Is(err, objects.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return w.holdLinks(o)
}

// holdLinks marks o's links as held.
func (w *historyWalk) holdLinks(o *objects.Object) error {
	links, err := w.links.Links(o)
	if err != nil {
		return err
	}
	for _, l := range links {
		w.seen[l] = true
	}
	return nil
}

// listRefs lists the existing refs: their values become tips, and the
// run-typed ones are returned, heads/* first, for holdRuns. A ref file
// that cannot be read holds nothing (the walk checks instead).
func (w *historyWalk) listRefs(rs *refs.Store) ([]objects.OID, error) {
	w.tips = map[objects.OID]bool{}
	var heads, others []objects.OID
	err := rs.ListTolerant(w.ctx, "", func(name string, id objects.OID) error {
		if id.Type == objects.TypeRun && !w.tips[id] {
			if strings.HasPrefix(name, "heads/") {
				heads = append(heads, id)
			} else {
				others = append(others, id)
			}
		}
		w.tips[id] = true
		return nil
	}, func(string, error) error { return nil })
	return append(heads, others...), err
}

// holdRuns reads runs, in order, marking the events (and other links)
// they list as held, until every event of links (the target's) is held
// or the lookup's budget is spent.
func (w *historyWalk) holdRuns(links []objects.OID, runs []objects.OID) error {
	left := map[objects.OID]bool{}
	for _, l := range links {
		if l.Type == objects.TypeEvent && !w.seen[l] {
			left[l] = true
		}
	}
	if len(left) < minHeldLookup {
		return nil
	}
	budget := heldLookupFactor * len(left)
	for _, id := range runs {
		if len(left) == 0 || budget <= 0 {
			return nil
		}
		o, err := w.get(id)
		if errors.Is(err, objects.ErrNotFound) {
			continue // a ref to a missing run holds nothing
		}
		if err != nil {
			return err
		}
		held, err := w.links.Links(o)
		if err != nil {
			return err
		}
		budget -= heldLookupFactor + len(held) // the read, and what it lists
		w.seen[id] = true
		for _, l := range held {
			w.seen[l] = true
			delete(left, l)
		}
	}
	return nil
}

// walk checks every object root reaches through its links that is not
// held: blobs by presence, the others read (verified) for their own
// links.
func (w *historyWalk) walk(root objects.OID, links []objects.OID) error {
	w.queue(root, links)
	for len(w.stack) > 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		it := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if it.id.Type == objects.TypeBlob {
			if w.stored(it.id) {
				continue
			}
			ok, err := w.store.Has(w.ctx, it.id)
			if err != nil {
				return fmt.Errorf("%s: %w", it.id, err)
			}
			if !ok {
				return &MissingHistoryError{Missing: it.id, From: it.from}
			}
			continue
		}
		o, err := w.get(it.id)
		if errors.Is(err, objects.ErrNotFound) {
			return &MissingHistoryError{Missing: it.id, From: it.from}
		}
		if err != nil {
			return err
		}
		if w.tips[it.id] {
			// The value of an existing ref, stored: its history is held.
			if err := w.holdLinks(o); err != nil {
				return err
			}
			continue
		}
		if err := w.push(o); err != nil {
			return err
		}
	}
	return nil
}

// push queues o's links not yet seen.
func (w *historyWalk) push(o *objects.Object) error {
	links, err := w.links.Links(o)
	if err != nil {
		return err
	}
	w.queue(o.ID, links)
	return nil
}

// queue queues the links of from not yet seen.
func (w *historyWalk) queue(from objects.OID, links []objects.OID) {
	for _, l := range links {
		if !w.seen[l] {
			w.seen[l] = true
			w.stack = append(w.stack, historyItem{id: l, from: from})
		}
	}
}

// get reads id through recent (readRecent), without confirming what is
// known stored.
func (w *historyWalk) get(id objects.OID) (*objects.Object, error) {
	if w.stored(id) {
		if o, err := w.recent.Get(w.ctx, id); err == nil {
			return o, nil
		}
	}
	return readRecent(w.ctx, w.store, w.recent, id)
}

// readRecent returns id from recent when store still holds it, else reads
// it (verified) from store.
func readRecent(ctx context.Context, store objects.Store, recent objects.Getter, id objects.OID) (*objects.Object, error) {
	if o, err := recent.Get(ctx, id); err == nil {
		ok, err := store.Has(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, objects.NotFound(id)
		}
		return o, nil
	}
	return store.Get(ctx, id)
}
