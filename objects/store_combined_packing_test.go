package objects

import (
	"context"
	"os"
	"path/filepath"
)

// packingStore is a CombinedStore whose every Put writes a pack, so the
// shared suite exercises the pack path of reads and writes.
type packingStore struct{ *CombinedStore }

// Put writes o as a one-object pack (the store's minimum batch is 1).
func (s packingStore) Put(ctx context.Context, o *Object) error {
	return s.PutBatch(ctx, []*Object{o})
}

// Corrupt rewrites every pack holding id with id's last stored byte
// flipped (and a consistent CRC, so only the re-hash can notice), and
// removes the original packs, as a damaging repack would.
func (s packingStore) Corrupt(id OID) error {
	ps := s.packs
	for _, p := range *ps.packs.Load() {
		i, ok := p.idx.find(spKeyOf(id))
		if !ok {
			continue
		}
		w, err := NewPackWriter(ps.dir, ps.algo, PackOptions{})
		if err != nil {
			return err
		}
		for j := range p.idx.count {
			oid := p.idx.oid(j, ps.algo)
			env, err := p.envelope(oid, p.idx.entry(j))
			if err != nil {
				return err
			}
			if j == i {
				env[len(env)-1] ^= 0xff
			}
			if err := w.add(oid, nil, env); err != nil {
				return err
			}
		}
		if _, err := w.Commit(); err != nil {
			return err
		}
		base := filepath.Join(ps.dir, p.name)
		if err := os.Remove(base + ".idx"); err != nil {
			return err
		}
		if err := os.Remove(base + ".pack"); err != nil {
			return err
		}
	}
	return ps.Reload()
}
