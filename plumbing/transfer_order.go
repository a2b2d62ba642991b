package plumbing

import (
	"context"
	"fmt"
	"slices"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
)

// finish orders the included objects link targets first and computes the
// boundary: the links of included objects that are neither included nor
// held by the receiver.
func (w *transferWalk) finish() (*TransferSet, error) {
	s := w.set
	s.links = w.links
	s.IDs = make([]objects.OID, 0, len(w.included))
	done := make(map[objects.OID]bool, len(w.included))
	boundary := map[objects.OID]bool{}
	type frame struct {
		id    objects.OID
		links []objects.OID
		next  int
	}
	// Iterative post-order DFS: an object is emitted once all its included
	// links are (content addressing rules out cycles; the explicit stack
	// keeps a 100,000-event chain off the goroutine stack).
	var stack []frame
	for _, root := range w.included {
		if done[root] {
			continue
		}
		rootLinks, _ := w.links.get(root)
		stack = append(stack[:0], frame{id: root, links: rootLinks})
		done[root] = true
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.links) {
				l := top.links[top.next]
				top.next++
				if !w.links.has(l) {
					had, err := w.receiverHas(l)
					if err != nil {
						return nil, err
					}
					if !had {
						boundary[l] = true
					}
					continue
				}
				if !done[l] {
					done[l] = true
					links, _ := w.links.get(l)
					stack = append(stack, frame{id: l, links: links})
				}
				continue
			}
			s.IDs = append(s.IDs, top.id)
			switch top.id.Type {
			case objects.TypeRun:
				s.Runs = append(s.Runs, top.id)
			case objects.TypeAttestation, objects.TypeAnnotation:
				s.Associations++
			}
			stack = stack[:len(stack)-1]
		}
	}
	for id := range boundary {
		s.Boundary = append(s.Boundary, id)
	}
	slices.SortFunc(s.Boundary, objects.OID.Compare)
	return s, nil
}

// WithIDs returns a set carrying ids (a subset of s.IDs in the same order,
// say what a remote turned out to lack) that shares s's object cache.
// Boundary, Runs and Associations are kept as they were.
func (s *TransferSet) WithIDs(ids []objects.OID) *TransferSet {
	c := *s
	c.IDs = ids
	return &c
}

// repoSource is a repository as a TransferSource: its store, its catalog
// (attestations and annotations by target) and its shallow file.
type repoSource struct {
	objects.Store
	cat     *index.Catalog
	shallow map[objects.OID]bool
}

// RepoTransferSource returns r as a TransferSource. It brings r's catalog
// up to date first (the catalog is derived data: failing to save it does
// not fail the walk). Associations it names are hints: the walk reads each
// through the store, which verifies it.
func RepoTransferSource(ctx context.Context, r *Repo) (TransferSource, error) {
	cat, _, err := OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("transfer source: %w", err)
	}
	shallow, err := r.shallowSet()
	if err != nil {
		return nil, fmt.Errorf("transfer source: %w", err)
	}
	return &repoSource{Store: newTransferReader(r), cat: cat, shallow: shallow}, nil
}

// Associations returns the attestations (runs only, SPEC §1.5.4) and the
// annotations targeting id, by oid.
func (s *repoSource) Associations(_ context.Context, id objects.OID) ([]objects.OID, error) {
	var out []objects.OID
	if id.Type == objects.TypeRun {
		for _, a := range s.cat.AttestationsFor(id) {
			out = append(out, a.ID)
		}
	}
	return append(out, s.cat.AnnotationsFor(id)...), nil
}

// GetUnparsed reads id without parsing a json body (objects.GetUnparsed),
// which embedding the Store interface does not promote.
func (s *repoSource) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return objects.GetUnparsed(ctx, s.Store, id)
}

// Shallow reports whether id is in r's shallow file.
func (s *repoSource) Shallow(id objects.OID) bool { return s.shallow[id] }

// ShallowSet returns the repository's shallow-boundary oids as a set.
func (r *Repo) ShallowSet() (map[objects.OID]bool, error) { return r.shallowSet() }
