package pack

import (
	"cmp"
	"slices"

	"github.com/tinehq/tine/objects"
)

var _ objects.ReadOrderer = (*Store)(nil)

// SortForRead reorders ids into the order the packs were written
// (objects.ReadOrderer): oldest pack first (the search order reversed),
// then by offset, each id at the copy a read would find first. A delta's
// base is written before it, in its pack or in an older one, so a reader
// following this order finds the base in the rebuilt-envelope cache and
// applies each delta once. Ids no pack holds (loose objects, absent ones)
// come first, in their given order. Nothing is read but the indexes; a
// store whose packs cannot be opened leaves ids as they are, and the reads
// report why.
func (s *Store) SortForRead(ids []objects.OID) {
	ps, err := s.current()
	if err != nil || len(ps) == 0 || len(ids) < 2 {
		return
	}
	type place struct {
		id   objects.OID
		pack int // age rank, 0 for the oldest pack; -1 for none
		off  uint64
	}
	at := make([]place, len(ids))
	for n, id := range ids {
		at[n] = place{id: id, pack: -1}
		if id.Algo != s.algo || !id.Type.Valid() {
			continue
		}
		k := spKeyOf(id)
		for j, p := range ps {
			if i, ok := p.idx.find(k); ok {
				at[n].pack, at[n].off = len(ps)-1-j, p.idx.off(i)
				break
			}
		}
	}
	slices.SortStableFunc(at, func(a, b place) int {
		return cmp.Or(cmp.Compare(a.pack, b.pack), cmp.Compare(a.off, b.off))
	})
	for n := range at {
		ids[n] = at[n].id
	}
}
