package pack

import (
	"fmt"
	"maps"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tinehq/tine/objects"
)

// When a Store's index is verified. Opening a pack used to hash and check
// its whole index (at 100,000 objects a 5.7 MB file: 10-15 ms, most of a
// short command's time) before the first lookup. A Store now maps the
// index and checks at open only what keeps every lookup inside the file:
// header, length against count, a non-decreasing fan-out ending at the
// count, and the pack checksum binding index to pack (name and trailer).
// The full verification (the SHA-256 trailer, key order, every entry's
// bounds, checkPack) runs once per pack per Store, the first time anything
// relies on the index for more than a found entry:
//
//   - a Get that finds its key checks that entry's block bounds, reads the
//     block (CRC-32C) and re-derives the object's oid from its envelope, so
//     a damaged index can make it fail, never return wrong bytes: it needs
//     nothing more;
//   - a Get that finds nothing verifies every index first: "not found" is
//     said only by verified indexes, and a damaged one is reported by name
//     (damage.go) as before;
//   - Has answering yes must be proven (writers skip what Has reports, so
//     a flipped key must never be believed): by reading and re-hashing the
//     object, as a Get would, for the first spProofReads answers of a pack
//     (a command resolving a few names), then by verifying the whole index
//     once (a writer asking about thousands);
//   - enumerations (List, ListTypes, SortedIDs, SortedIDsOf, ListSizes),
//     Packs, Damaged and Walk trust every key, so they verify every index
//     first (a listing by type passes over the other types' keys, but a
//     damaged key could have any type).
//
// A pack found damaged moves from the search order to Damaged, exactly as
// if Reload had refused it.

// spProofReads is how many Has answers of a pack are proven by reading the
// object before the pack's whole index is verified instead.
const spProofReads = 32

// spTrust is the once-per-pack full verification and its verdict.
type spTrust struct {
	once   sync.Once
	err    error
	proofs atomic.Int32 // Has answers proven by reading the object
}

// proves reports whether entry i, found under id, may be believed to hold
// id: the object read back re-hashes to id, or the whole index verified.
func (p *spPack) proves(id objects.OID, i int) bool {
	if p.trust.proofs.Add(1) <= spProofReads {
		if p.idx.checkEntry(i, p.size) == nil {
			if _, err := p.read(id, i, true); err == nil {
				return true
			}
		}
	}
	return p.verifyIndex() == nil
}

// verifyIndex verifies the whole index once and returns the verdict.
func (p *spPack) verifyIndex() error {
	p.trust.once.Do(func() {
		err := p.idx.checkSum(p.data)
		if err == nil {
			err = p.idx.checkTables()
		}
		if err == nil {
			err = p.idx.checkPack(p.size)
		}
		if err != nil {
			p.trust.err = corruptFile(filepath.Join(p.dir, p.name+".idx"), err)
		}
	})
	return p.trust.err
}

// checkEntry checks entry i's block and envelope bounds against a pack of
// packSize bytes: what checkTables and checkPack check for every entry.
func (x *spIndex) checkEntry(i int, packSize int64) error {
	size, start, length := x.u32(x.sizes, i), x.u32(x.starts, i), x.u32(x.lengths, i)
	if size <= spBlockHeader || length == 0 || uint64(start)+uint64(length) > spMaxRaw {
		return fmt.Errorf("entry %d: bad block or envelope bounds", i)
	}
	if packSize < spPackHeader+spSumSize {
		return fmt.Errorf("pack shorter than its header and trailer")
	}
	end := uint64(packSize) - spSumSize
	if off := x.off(i); off < spPackHeader || off > end || uint64(size) > end-off {
		return fmt.Errorf("entry %d: block [%d,+%d) outside the pack", i, off, size)
	}
	return nil
}

// trusted verifies every open pack's index (once each) and returns the
// search order without the damaged ones, which move to Damaged. It fails
// only when the packs cannot be opened (current).
func (s *Store) trusted() ([]*spPack, error) {
	ps, err := s.current()
	if err != nil {
		return nil, err
	}
	bad := false
	for _, p := range ps {
		if p.verifyIndex() != nil {
			bad = true
		}
	}
	if !bad {
		return ps, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	damaged := maps.Clone(*s.damaged.Load())
	var keep []*spPack
	for _, p := range *s.packs.Load() {
		if err := p.verifyIndex(); err != nil {
			damaged[p.name] = err
			s.retired = append(s.retired, retiredPack{p: p, at: time.Now()}) // a reader may still hold it
			s.cache.forget(p)
			s.dcache.forget(p)
			continue
		}
		keep = append(keep, p)
	}
	s.packs.Store(&keep)
	s.damaged.Store(&damaged)
	return keep, nil
}
