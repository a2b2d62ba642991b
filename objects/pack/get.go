package pack

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tinehq/tine/objects"
)

// Get reads, verifies and decodes the object id. When several packs hold
// id and the first copy is damaged, a sound copy from another pack is
// returned; when none is sound, the first error is.
func (s *Store) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.get(ctx, id, true)
}

// GetUnparsed is Get without the json body's parse
// (objects.DecodeEnvelopeUnparsedAs).
func (s *Store) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.get(ctx, id, false)
}

// get is Get, parsing a json body only when parse.
func (s *Store) get(ctx context.Context, id objects.OID, parse bool) (*objects.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if id.Algo != s.algo || !id.Type.Valid() {
		return nil, objects.NotFound(id)
	}
	if err := s.ensureOpen(); err != nil {
		return nil, fmt.Errorf("object %s: %w", id, err)
	}
	k := spKeyOf(id)
	var first error
	for _, p := range *s.packs.Load() {
		i, ok := p.idx.find(k)
		if !ok {
			continue
		}
		var o *objects.Object
		err := p.idx.checkEntry(i, p.size)
		if err != nil {
			// A damaged index: the full check fails too and moves the
			// pack to Damaged (the packs are open: no error).
			s.trusted()
			err = fmt.Errorf("object %s: %w", id, corruptFile(filepath.Join(s.dir, p.name+".idx"), err))
		} else if o, err = p.read(id, i, parse); err == nil {
			return o, nil
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	// Absence is said only by verified indexes (index_trust.go);
	// missing verifies them.
	return nil, s.missing(id)
}

// Has reports whether some pack's index lists id. It does not read the
// object.
func (s *Store) Has(ctx context.Context, id objects.OID) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return s.holds(id)
}

// holds is Has without the context.
func (s *Store) holds(id objects.OID) (bool, error) {
	ps, err := s.current()
	if err != nil {
		return false, err
	}
	if id.Algo != s.algo || !id.Type.Valid() {
		return false, nil
	}
	k := spKeyOf(id)
	for _, p := range ps {
		if i, ok := p.idx.find(k); ok {
			if !p.proves(id, i) {
				s.trusted() // a damaged index is believed in nothing
				continue
			}
			return true, nil
		}
	}
	return false, nil
}
