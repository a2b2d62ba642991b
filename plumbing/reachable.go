package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// Reachable returns every stored object gc must keep whatever its age:
//
//   - the value of every ref (SPEC §2.5) and every reflog row's old and new
//     value (SPEC §2.6), as git keeps reflog'd objects;
//   - everything linked from those (objects.Links), transitively;
//   - every attestation and annotation that links to a reachable object
//     (its target, or for an annotation a previous annotation of the
//     chain), and what it links to in turn. Nothing links to them from a
//     run, yet dropping a signature or a note about a live run would lose
//     data, so they live exactly as long as what they describe.
//
// Shallow oids (SPEC §2.7) are boundaries: absent by definition, so a link
// to one ends the walk. Any other missing, unreadable or invalid object on
// the way is an error naming it and where it was reached from: pruning
// with a partial view of the graph could delete what the missing part
// links to, so gc refuses instead (as git gc does on a bad object).
func Reachable(ctx context.Context, r *Repo) (map[objects.OID]bool, error) {
	shallow, err := r.shallowSet()
	if err != nil {
		return nil, fmt.Errorf("reachability: %w", err)
	}
	w := &reachWalk{ctx: ctx, r: r, shallow: shallow, seen: map[objects.OID]bool{}, from: map[objects.OID]string{}}
	if err := w.addRoots(); err != nil {
		return nil, err
	}
	if err := w.indexDescribers(); err != nil {
		return nil, err
	}
	if err := w.walk(); err != nil {
		return nil, err
	}
	return w.seen, nil
}

// reachWalk is the state of one reachability walk.
type reachWalk struct {
	ctx     context.Context
	r       *Repo
	shallow map[objects.OID]bool
	seen    map[objects.OID]bool
	stack   []objects.OID
	// from names where a root came from, for error messages.
	from map[objects.OID]string
	// describers maps an object to the attestations and annotations that
	// link to it.
	describers map[objects.OID][]objects.OID
}

// push queues id once.
func (w *reachWalk) push(id objects.OID, from string) {
	if w.seen[id] {
		return
	}
	w.seen[id] = true
	if _, ok := w.from[id]; !ok {
		w.from[id] = from
	}
	w.stack = append(w.stack, id)
}

// addRoots queues every ref value and every reflog row's values.
func (w *reachWalk) addRoots() error {
	err := w.r.refs.List(w.ctx, "", func(name string, id objects.OID) error {
		w.push(id, "ref "+name)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reachability: list refs: %w", err)
	}
	dir := filepath.Join(w.r.root, "logs")
	err = walkFiles(dir, func(name string, d fs.DirEntry) error {
		if strings.HasPrefix(filepath.Base(name), ".tmp-") {
			return nil
		}
		if norm, err := refs.NormalizeName(name); err != nil || norm != name {
			return fmt.Errorf("reflog logs/%s is not at a legal ref name; run tine fsck", name)
		}
		entries, err := w.r.refs.Reflog(name)
		if err != nil {
			return fmt.Errorf("reflog %s: %w", name, err)
		}
		for i, e := range entries {
			from := fmt.Sprintf("reflog %s row %d", name, i+1)
			w.push(e.New, from)
			if !e.Old.IsZero() {
				w.push(e.Old, from)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reachability: %w", err)
	}
	return nil
}

// indexDescribers decodes every attestation and annotation and records
// which objects each links to.
func (w *reachWalk) indexDescribers() error {
	w.describers = map[objects.OID][]objects.OID{}
	var ids []objects.OID
	describers := []objects.Type{objects.TypeAnnotation, objects.TypeAttestation}
	err := objects.ListTypes(w.ctx, w.r.objs, describers, func(id objects.OID) error {
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reachability: list objects: %w", err)
	}
	for _, id := range ids {
		links, err := w.links(id)
		if err != nil {
			return err
		}
		for _, l := range links {
			w.describers[l] = append(w.describers[l], id)
		}
	}
	return nil
}

// links reads id and returns its links.
func (w *reachWalk) links(id objects.OID) ([]objects.OID, error) {
	o, err := w.r.objs.Get(w.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reachability: %w", err)
	}
	links, err := objects.Links(o)
	if err != nil {
		return nil, fmt.Errorf("reachability: %w", err)
	}
	return links, nil
}

// walk follows links (and describers) from the queued roots.
func (w *reachWalk) walk() error {
	for len(w.stack) > 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		id := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		from := w.from[id]
		for _, d := range w.describers[id] {
			w.push(d, fmt.Sprintf("%s, which describes %s", d, id))
		}
		if w.shallow[id] {
			if ok, err := w.r.objs.Has(w.ctx, id); err != nil || !ok {
				continue // a boundary: absent by definition
			}
		}
		if id.Type == objects.TypeBlob {
			ok, err := w.r.objs.Has(w.ctx, id)
			if err != nil {
				return fmt.Errorf("reachability: blob %s (reached from %s): %w", id, from, err)
			}
			if !ok {
				return fmt.Errorf("reachability: blob %s (reached from %s): %w", id, from, objects.ErrNotFound)
			}
			continue
		}
		links, err := w.links(id)
		if errors.Is(err, objects.ErrNotFound) {
			return fmt.Errorf("%w (reached from %s); run tine fsck", err, from)
		}
		if err != nil {
			return fmt.Errorf("%w (reached from %s)", err, from)
		}
		for _, l := range links {
			w.push(l, fmt.Sprintf("%s %s", id.Type, id))
		}
	}
	return nil
}
