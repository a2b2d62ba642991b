package remote

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// Batches cuts a transfer set into batches of at most max objects, in its
// dependency order, reading each object through g (the walk's cache first),
// and calls fn with each batch and the part of set.Boundary its objects
// link to: what a Sink.Install takes. Transports that frame objects use it
// to cut packs at their per-upload limit (objects.MaxPackObjects for
// TINEPACK3); ExternalLinks gives such a pack's shallow list.
func Batches(ctx context.Context, set *plumbing.TransferSet, g objects.Getter, max int, fn func(objs []*objects.Object, boundary []objects.OID) error) error {
	return BatchesWithin(ctx, set, g, max, math.MaxInt64, fn)
}

// BatchesWithin is Batches with batches also cut before their bodies
// would pass maxBytes (a batch holds at least one object, however
// large): only one batch's objects are read and in memory at a time.
func BatchesWithin(ctx context.Context, set *plumbing.TransferSet, g objects.Getter, max int, maxBytes int64, fn func(objs []*objects.Object, boundary []objects.OID) error) error {
	if max <= 0 || maxBytes <= 0 {
		return fmt.Errorf("batches of %d objects, %d bytes: %w", max, maxBytes, ErrRefused)
	}
	inBoundary := make(map[objects.OID]bool, len(set.Boundary))
	for _, id := range set.Boundary {
		inBoundary[id] = true
	}
	var (
		objs     []*objects.Object
		size     int64
		seen     = map[objects.OID]bool{}
		boundary []objects.OID
	)
	flush := func() error {
		slices.SortFunc(boundary, objects.OID.Compare)
		err := fn(objs, boundary)
		objs, size, seen, boundary = nil, 0, map[objects.OID]bool{}, nil
		return err
	}
	for _, id := range set.IDs {
		o, err := set.Object(ctx, g, id)
		if err != nil {
			return fmt.Errorf("read %s: %w", id, err)
		}
		if len(objs) > 0 && (len(objs) == max || size+int64(len(o.Body)) > maxBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		objs = append(objs, o)
		size += int64(len(o.Body))
		if len(inBoundary) == 0 {
			continue // a complete set: no object links outside it
		}
		links, err := (*SetLinks)(set).Links(o)
		if err != nil {
			return err
		}
		for _, l := range links {
			if inBoundary[l] && !seen[l] {
				seen[l] = true
				boundary = append(boundary, l)
			}
		}
	}
	if len(objs) == 0 {
		return nil
	}
	return flush()
}

// ExternalLinks returns the links of objs that are not in objs, sorted and
// without duplicates: a TINEPACK3 frame's shallow list (SPEC §2.8 requires
// it to be exactly this set).
func ExternalLinks(objs []*objects.Object) ([]objects.OID, error) {
	return LinkMemo(nil).External(objs)
}

// LinkMemo remembers objects.Links by object id, so one transfer parses
// each object's links once, not once per step (a fetched frame's links
// were parsed to order it, split off its runs, find the next round's
// wants and its boundary). The nil LinkMemo remembers nothing.
type LinkMemo map[objects.OID][]objects.OID

// Links returns objects.Links(o), parsed once per id.
func (m LinkMemo) Links(o *objects.Object) ([]objects.OID, error) {
	if ls, ok := m[o.ID]; ok {
		return ls, nil
	}
	ls, err := objects.Links(o)
	if err == nil && m != nil {
		m[o.ID] = ls
	}
	return ls, err
}

// External is ExternalLinks with the links taken from m.
func (m LinkMemo) External(objs []*objects.Object) ([]objects.OID, error) {
	return externalLinks(objs, m.Links)
}

// SetLinks is a LinkSource answering from the links set's walk parsed,
// parsing only objects the walk did not include; it never changes set.
type SetLinks plumbing.TransferSet

// Links returns o's links.
func (s *SetLinks) Links(o *objects.Object) ([]objects.OID, error) {
	if s != nil {
		if ls, ok := (*plumbing.TransferSet)(s).Links(o.ID); ok {
			return ls, nil
		}
	}
	return objects.Links(o)
}

// External is ExternalLinks with the links taken from the set's walk: a
// frame cut from a transfer set parses no object's links again.
func (s *SetLinks) External(objs []*objects.Object) ([]objects.OID, error) {
	return externalLinks(objs, s.Links)
}

// ExternalOf is External for the objects ids, reading through g only
// those whose links the set's walk did not parse: a frame whose objects
// travel in storage blocks is never decoded on the sending side.
func (s *SetLinks) ExternalOf(ctx context.Context, g objects.Getter, ids []objects.OID) ([]objects.OID, error) {
	return external(ids, func(id objects.OID) objects.OID { return id }, func(id objects.OID) ([]objects.OID, error) {
		if ls, ok := (*plumbing.TransferSet)(s).Links(id); ok {
			return ls, nil
		}
		o, err := (*plumbing.TransferSet)(s).Object(ctx, g, id)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", id, err)
		}
		return objects.Links(o)
	})
}

// externalLinks is ExternalLinks with the links of each object from links.
func externalLinks(objs []*objects.Object, links func(*objects.Object) ([]objects.OID, error)) ([]objects.OID, error) {
	return external(objs, func(o *objects.Object) objects.OID { return o.ID }, links)
}

// external returns, sorted, the ids that the items (each with its id from
// id) link to (from links) and that are not among the items' ids.
func external[T any](items []T, id func(T) objects.OID, links func(T) ([]objects.OID, error)) ([]objects.OID, error) {
	in := make(map[objects.OID]bool, len(items))
	for _, it := range items {
		in[id(it)] = true
	}
	ext := map[objects.OID]bool{}
	for _, it := range items {
		ls, err := links(it)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			if !in[l] {
				ext[l] = true
			}
		}
	}
	out := make([]objects.OID, 0, len(ext))
	for id := range ext {
		out = append(out, id)
	}
	slices.SortFunc(out, objects.OID.Compare)
	return out, nil
}
