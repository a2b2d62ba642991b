package pack

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Damage stays local. A storage pack whose index is damaged or missing
// cannot be searched, yet may hold objects anything links to. Refusing the
// whole repository for it (what tine did first) stops every verb, even
// those that never need its objects; ignoring it would make its objects
// look absent. So a Store skips such a pack, remembers why, and every
// lookup that misses names it: the caller learns the object may be in a
// damaged pack and how to rebuild its index (RebuildPackIndex, `tine
// index-pack`), never just "not found".

// Damaged is a storage pack the store could not open and skips.
type Damaged struct {
	// Name is the pack's name, "pack-<64 hex>".
	Name string
	// Err says why: a damaged index or trailer, or ErrNoIndex.
	Err error
}

// Damaged returns the packs the last Reload could not open or whose index
// failed its verification, by name; it verifies every open index first.
// It fails when the packs Open listed cannot be opened on this first use:
// an unreadable store is not an undamaged one.
func (s *Store) Damaged() ([]Damaged, error) {
	if _, err := s.trusted(); err != nil { // opens the packs first
		return nil, err
	}
	m := *s.damaged.Load()
	out := make([]Damaged, 0, len(m))
	for n, err := range m {
		out = append(out, Damaged{Name: n, Err: err})
	}
	slices.SortFunc(out, func(a, b Damaged) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// missing returns the error of a lookup of id that found no copy: not
// found, naming the damaged packs that might hold it. It wraps ErrNotFound
// either way, so callers that treat absence as absence keep working.
func (s *Store) missing(id objects.OID) error {
	d, err := s.Damaged() // verifies every index: a miss is trusted only then
	if err != nil {
		return fmt.Errorf("object %s: %w", id, err)
	}
	if len(d) == 0 {
		return objects.NotFound(id)
	}
	var names []string
	for _, p := range d {
		names = append(names, p.Name)
	}
	return fmt.Errorf("object %s: %w; it may be in damaged storage pack %s (%v): tine index-pack %s rebuilds its index",
		id, objects.ErrNotFound, strings.Join(names, ", "), firstLine(d[0].Err), d[0].Name)
}

// DamageError is the error of a store whose objects may lie in damaged
// packs, for callers (gc) that must not act on a partial view.
func DamageError(d []Damaged) error {
	if len(d) == 0 {
		return nil
	}
	errs := make([]error, len(d))
	for i, p := range d {
		errs[i] = fmt.Errorf("%s: %w (tine index-pack %s rebuilds its index)", p.Name, p.Err, p.Name)
	}
	return errors.Join(errs...)
}

// firstLine returns err's text up to its first newline.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
