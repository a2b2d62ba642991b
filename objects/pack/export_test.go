package pack

import (
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
)

// CorruptPacked rewrites every pack of ps holding id with id's last stored byte
// flipped (and a consistent CRC, so only the re-hash can notice), and
// removes the original packs, as a damaging repack would.
func CorruptPacked(ps *Store, id objects.OID) error {
	cur, err := ps.current()
	if err != nil {
		return err
	}
	for _, p := range cur {
		i, ok := p.idx.find(spKeyOf(id))
		if !ok {
			continue
		}
		w, err := NewWriter(ps.dir, ps.algo, Options{})
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
