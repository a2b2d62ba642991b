package pack

import (
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"sync/atomic"

	"github.com/tinehq/tine/objects"
)

// Reading delta blocks (delta.go). A read follows the chain of bases
// within the pack, applies the instructions from the deepest base up and
// returns the rebuilt envelope, which the caller re-hashes like any other
// (DecodeEnvelopeAs): the hash of the result is what proves a delta and its
// bases sound. Rebuilt envelopes are kept in a small per-pack cache, so
// reading a run and then its successor, or walking a pack in order (Walk,
// VerifyEach, gc), applies each delta once instead of once per descendant.

// Bounds of the cache of rebuilt envelopes: one per Store, shared by its
// packs (a pack opened alone, by Verify, has its own).
const (
	spDeltaCacheItems = 8
	spDeltaCacheBytes = 64 << 20
)

// spDeltaKey names a rebuilt envelope by its pack, block and position.
type spDeltaKey struct {
	p     *spPack
	off   uint64
	start uint32
}

// spDeltaCache is an LRU of rebuilt envelopes, safe for concurrent use.
// Entries are never modified once published.
type spDeltaCache struct {
	mu    sync.Mutex
	lru   list.List // of *spDeltaItem, most recent first
	m     map[spDeltaKey]*list.Element
	bytes int
	// applied counts the deltas applied through this cache (tests show
	// with it that a read order applies each delta once).
	applied atomic.Int64
}

// spDeltaItem is one cached envelope.
type spDeltaItem struct {
	key spDeltaKey
	env []byte
}

// newSPDeltaCache returns an empty cache.
func newSPDeltaCache() *spDeltaCache {
	return &spDeltaCache{m: map[spDeltaKey]*list.Element{}}
}

// get returns the cached envelope of e of p, or nil; the caller must not
// modify it.
func (c *spDeltaCache) get(p *spPack, e spEntry) []byte {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[spDeltaKey{p, e.off, e.start}]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*spDeltaItem).env
}

// put publishes env as e's envelope; env must never be modified afterwards.
func (c *spDeltaCache) put(p *spPack, e spEntry, env []byte) {
	if c == nil || len(env) > spDeltaCacheBytes/2 {
		return
	}
	k := spDeltaKey{p, e.off, e.start}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.m[k] = c.lru.PushFront(&spDeltaItem{key: k, env: env})
	c.bytes += len(env)
	for c.lru.Len() > spDeltaCacheItems || c.bytes > spDeltaCacheBytes {
		c.evict(c.lru.Back())
	}
}

// forget drops the envelopes of p (a pack the store no longer reads).
func (c *spDeltaCache) forget(p *spPack) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*spDeltaItem).key.p == p {
			c.evict(el)
		}
		el = next
	}
}

// evict removes el; the caller holds the lock.
func (c *spDeltaCache) evict(el *list.Element) {
	it := c.lru.Remove(el).(*spDeltaItem)
	delete(c.m, it.key)
	c.bytes -= len(it.env)
}

// isDeltaBlock reports whether the block of e is a delta block, reading
// its first byte only when e's size cannot tell (a delta block is never
// larger than spStreamRead, see Writer.addRun).
func (p *spPack) isDeltaBlock(e spEntry) bool {
	if e.size > spStreamRead || e.size < spBlockHeader+spDeltaHeader {
		return false
	}
	var kind [1]byte
	_, err := p.f.ReadAt(kind[:], int64(e.off))
	return err == nil && kind[0] == spKindDelta
}

// deltaEnvelope rebuilds the envelope of entry e (found under id) from its
// whole delta block blk; depth counts the deltas already followed. It
// returns a fresh copy the caller may keep.
func (p *spPack) deltaEnvelope(id objects.OID, e spEntry, blk []byte, depth int) ([]byte, error) {
	env, err := p.deltaShared(id, e, blk, depth)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), env...), nil
}

// deltaShared is deltaEnvelope returning the cached bytes, which the caller
// must not modify.
func (p *spPack) deltaShared(id objects.OID, e spEntry, blk []byte, depth int) ([]byte, error) {
	if env := p.dcache.get(p, e); env != nil {
		return env, nil
	}
	if depth >= MaxDeltaChain {
		return nil, p.corruptEntry(id, e.off, fmt.Sprintf("delta chain longer than %d", MaxDeltaChain))
	}
	if crc32.Checksum(blk, crc32c) != e.crc {
		return nil, p.corruptEntry(id, e.off, "CRC-32C mismatch")
	}
	d, err := parseDeltaBlock(blk)
	if err == nil && (d.target != e.key || e.start != 0 || d.rawLen != e.length) {
		err = errors.New("delta block does not match its index entry")
	}
	if err != nil {
		return nil, p.corruptEntry(id, e.off, err.Error())
	}
	bp, i, ok := p.findBase(d.base)
	if !ok {
		return nil, p.corruptEntry(id, e.off, errDeltaBase.Error())
	}
	baseID := bp.idx.oid(i, bp.algo)
	base, err := bp.sharedEnvelope(baseID, bp.idx.entry(i), depth+1)
	if err != nil {
		return nil, fmt.Errorf("object %s: delta base: %w", id, err)
	}
	env, err := applyDelta(base, d.ops, d.rawLen)
	if err != nil {
		return nil, p.corruptEntry(id, e.off, err.Error())
	}
	if p.dcache != nil {
		p.dcache.applied.Add(1)
	}
	p.dcache.put(p, e, env)
	return env, nil
}

// findBase finds the base k of a delta of p: in p, else in another pack of
// p's store (a delta an append wrote), re-scanning the directory once when
// none holds it (a gc may have moved it into a pack this store has not
// opened yet).
func (p *spPack) findBase(k spKey) (*spPack, int, bool) {
	if i, ok := p.idx.find(k); ok {
		return p, i, true
	}
	if p.store == nil {
		return nil, 0, false
	}
	for try := 0; try < 2; try++ {
		// p is open, so its store's packs are: current cannot fail.
		ps, _ := p.store.current()
		for _, q := range ps {
			if q == p {
				continue
			}
			if i, ok := q.idx.find(k); ok {
				return q, i, true
			}
		}
		if try == 0 && p.store.Reload() != nil {
			break
		}
	}
	return nil, 0, false
}

// sharedEnvelope returns the envelope of entry e as a delta base: cached
// bytes when the pack has them, otherwise read (a delta rebuilt, anything
// else read as Get reads it) and cached. The bytes are not re-hashed here:
// the target built on them is.
func (p *spPack) sharedEnvelope(id objects.OID, e spEntry, depth int) ([]byte, error) {
	if env := p.dcache.get(p, e); env != nil {
		return env, nil
	}
	if p.isDeltaBlock(e) {
		blk := make([]byte, e.size)
		if _, err := p.f.ReadAt(blk, int64(e.off)); err != nil {
			return nil, fmt.Errorf("object %s: read %s.pack: %w", id, p.name, err)
		}
		return p.deltaShared(id, e, blk, depth)
	}
	env, err := p.envelope(id, e)
	if err != nil {
		return nil, err
	}
	p.dcache.put(p, e, env)
	return env, nil
}

// deltaTarget returns the target key and raw length of a delta block
// without rebuilding it (index-pack), checking its structure.
func deltaTarget(blk []byte) (spKey, uint32, error) {
	d, err := parseDeltaBlock(blk)
	return d.target, d.rawLen, err
}

// deltaBlockLen returns the length of the delta block whose first
// spBlockHeader+spDeltaHeader bytes are head.
func deltaBlockLen(head []byte) int64 {
	n := binary.BigEndian.Uint32(head[spBlockHeader+2*spKeySize+4:])
	return spBlockHeader + spDeltaHeader + int64(n)
}
