package s3remote

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// packSource is the remote as a plumbing.TransferSource, for the
// client-side walk of a fetch: it knows what every pack holds from the
// indexes, downloads a pack whole the first time one of its objects is
// read, and reads it through a pack.Store over a temporary directory
// (which re-hashes every object). Nothing on the server walks anything.
type packSource struct {
	t     *Transport
	pi    *packIndex
	dir   string
	store *pack.Store
	// skip reports objects the receiver holds: their associations are
	// never looked at (the walk would not send them anyway), which saves
	// downloading the packs holding them.
	skip func(context.Context, objects.OID) (bool, error)

	mu      sync.Mutex
	fetched map[string]bool
	bytes   int64
	targets map[objects.OID][]objects.OID // association target → associations
}

// newPackSource opens an empty download directory.
func newPackSource(t *Transport, pi *packIndex, skip func(context.Context, objects.OID) (bool, error)) (*packSource, error) {
	dir, err := os.MkdirTemp("", "tine-s3-fetch-")
	if err != nil {
		return nil, err
	}
	st, err := pack.Open(dir, t.algo)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &packSource{t: t, pi: pi, dir: dir, store: st, skip: skip, fetched: map[string]bool{}}, nil
}

// close removes the downloads.
func (s *packSource) close() {
	s.store.Close()
	os.RemoveAll(s.dir)
}

// Has reports whether some remote pack holds id.
func (s *packSource) Has(_ context.Context, id objects.OID) (bool, error) { return s.pi.has(id), nil }

// Get reads id from its pack, downloading the pack first if needed.
func (s *packSource) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	name, ok := s.pi.where[id]
	if !ok {
		return nil, objects.NotFound(id)
	}
	if err := s.ensure(ctx, name); err != nil {
		return nil, err
	}
	return s.store.Get(ctx, id)
}

// ensure downloads pack name once.
func (s *packSource) ensure(ctx context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fetched[name] {
		return nil
	}
	n, err := s.t.downloadPack(ctx, s.dir, name, s.pi.idx[name])
	if err != nil {
		return err
	}
	if err := s.store.Reload(); err != nil {
		return err
	}
	d, err := s.store.Damaged()
	if err != nil {
		return err
	}
	if len(d) > 0 {
		return fmt.Errorf("%s: pack %s: %w: %w", s.t.url, name, ErrRemoteCorrupt, pack.DamageError(d))
	}
	s.fetched[name] = true
	s.bytes += n
	return nil
}

// Shallow reports false: pushes never leave a dangling link (Push), so an
// S3 remote has no shallow boundary.
func (s *packSource) Shallow(objects.OID) bool { return false }

// Associations returns the remote's attestations and annotations
// targeting id. Only objects know their targets, so the first call reads
// every remote attestation and annotation the receiver lacks (downloading
// the packs holding them) and keeps the mapping.
func (s *packSource) Associations(ctx context.Context, id objects.OID) ([]objects.OID, error) {
	if s.targets == nil {
		targets := map[objects.OID][]objects.OID{}
		for _, a := range s.pi.assocs {
			if had, err := s.skip(ctx, a); err != nil {
				return nil, err
			} else if had {
				continue
			}
			o, err := s.Get(ctx, a)
			if err != nil {
				return nil, err
			}
			v, ok := o.Value.Get("target_id")
			if !ok || v.Kind != objects.KindString {
				continue // an annotation without a target belongs to no run
			}
			target, err := objects.ParseOIDFor(s.t.algo, v.Str)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", s.t.url, a, err)
			}
			targets[target] = append(targets[target], a)
		}
		s.targets = targets
	}
	return s.targets[id], nil
}
