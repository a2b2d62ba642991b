package pack

import (
	"bytes"
	"context"
	"slices"

	"github.com/tinehq/tine/objects"
)

var _ objects.TypeLister = (*Store)(nil)

// List calls fn for every object of every pack once, in enumeration order
// (SPEC §2.1: by type, then by digest).
func (s *Store) List(ctx context.Context, fn func(objects.OID) error) error {
	return s.ListTypes(ctx, objects.Types, fn)
}

// ListTypes calls fn for every object of the given types in every pack
// once, in enumeration order (objects.TypeLister). Only the ids of those
// types are collected: the index keys of the others are passed over.
func (s *Store) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ids, err := s.SortedIDsOf(types)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := fn(id); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// SortedIDs returns the distinct ids of all packs in enumeration order;
// it fails only when the packs cannot be opened (Open).
func (s *Store) SortedIDs() ([]objects.OID, error) {
	return s.SortedIDsOf(objects.Types)
}

// SortedIDsOf returns the distinct ids of the given types in all packs,
// in enumeration order; types is as in ListTypes. Like every enumeration
// it believes only verified indexes (index_trust.go): a damaged pack lists
// nothing and moves to Damaged. It fails only when the packs cannot be
// opened (Open).
func (s *Store) SortedIDsOf(types []objects.Type) ([]objects.OID, error) {
	ps, err := s.trusted()
	if err != nil {
		return nil, err
	}
	// Entries go straight to their place: a first pass over the indexes'
	// type bytes counts each wanted type, so the ids are one allocation cut
	// into a segment per type. An index's keys are digest first, so each
	// pack fills a segment in digest order: one pack needs no sort at all;
	// several need each segment sorted and deduplicated (an object may be
	// in more than one pack).
	var want [spTypes + 1]bool
	for _, t := range types {
		want[spTypeCode(t)] = true // a string that is no type has code 0
	}
	want[0] = false
	var next [spTypes + 2]int // next[c]: where type code c's next id goes
	for _, p := range ps {
		for i := range p.idx.count {
			if c := p.idx.keys[i*spKeySize+32]; int(c) <= spTypes && want[c] {
				next[c+1]++
			}
		}
	}
	for c := 1; c < len(next); c++ {
		next[c] += next[c-1]
	}
	ids := make([]objects.OID, next[spTypes+1])
	var start [spTypes + 2]int
	copy(start[:], next[:])
	for _, p := range ps {
		for i := range p.idx.count {
			if c := p.idx.keys[i*spKeySize+32]; int(c) <= spTypes && want[c] {
				ids[next[c]] = s.oidOf(p.idx.key(i))
				next[c]++
			}
		}
	}
	if len(ps) < 2 {
		return ids, nil
	}
	n := 0
	for c := 1; c <= spTypes; c++ {
		seg := ids[start[c]:start[c+1]]
		slices.SortFunc(seg, func(x, y objects.OID) int { return bytes.Compare(x.Digest[:], y.Digest[:]) })
		n += copy(ids[n:], slices.Compact(seg))
	}
	return ids[:n], nil
}

// spTypes is the number of type codes (1 to 5, format.go).
const spTypes = 5
