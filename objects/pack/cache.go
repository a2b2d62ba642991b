package pack

import "sync"

// Decoded-block cache of a Store. A random read of a small object costs
// the decompression of its whole block (8 KiB by default, about eight
// objects), so a reader visiting a pack's objects in random order (cat-object
// --batch with shuffled input) would decode each block once per object in
// it. The store keeps decoded multi-object blocks in one arena, filled in
// order and overwritten oldest first (a ring: for random access as good as
// an LRU, with no per-block allocation and nothing for the garbage
// collector to scan or pace on).
//
// The ring starts at spCacheStart bytes, enough for readers that go
// through neighbouring objects (log, walks, reads in write order: each
// block is decoded once and its objects read while it is cached). It grows
// only when it proves too small: a block decoded again soon after the ring
// evicted it (a ghost hit, ARC's idea) means the reader comes back to
// blocks, and every spGhostGrow such blocks double the ring, up to
// spCacheBytes. The arena's pages are touched only as blocks are written,
// so memory follows what was read: for random reads, the pack's decoded
// size up to the bound.
//
// Cached bytes never leave the cache: an object is copied out under the lock
// and then re-hashed like any other read (DecodeEnvelopeAs), so the cache
// can make a read cheaper but never makes a damaged object pass; a block is
// cached only after its CRC-32C matched and it decompressed to its declared
// length.
const (
	// spCacheStart is the ring's initial size.
	spCacheStart = 2 << 20
	// spCacheBytes bounds the decoded bytes cached. The ring reaches it
	// only for a reader that keeps coming back to evicted blocks, and
	// then holds a pack of up to this many decoded bytes whole, so each
	// block is decoded once: at git's 96 MiB (core.deltaBaseCacheLimit,
	// what git spends on rebuilding objects from their neighbours), a
	// shuffled read of 100,000 1 KiB objects (110 MiB decoded, about
	// 13,400 blocks) decoded 20,005 blocks; at this bound 15,108 (the
	// extra ones while the ring grows), at 10% less time.
	spCacheBytes = 256 << 20
	// spCacheBlocks bounds the number of cached blocks, so a pack of tiny
	// blocks cannot grow the cache's map past a few MiB.
	spCacheBlocks = 1 << 15
	// spCacheMaxBlock is the largest decoded block worth caching; larger
	// blocks (written with a large Options.BlockSize) are not kept.
	spCacheMaxBlock = 256 << 10
	// spGhosts is how many evicted blocks the cache remembers.
	spGhosts = 4096
	// spGhostGrow is how many blocks decoded again after their eviction
	// double the ring.
	spGhostGrow = 16
)

// spCacheKey names a block: its pack and its offset.
type spCacheKey struct {
	p   *spPack
	off uint64
}

// spCacheSlot is where a cached block lies in the arena.
type spCacheSlot struct {
	key spCacheKey
	pos int
	n   int
}

// spBlockCache is a mutex-guarded ring of decoded blocks, safe for
// concurrent use.
type spBlockCache struct {
	mu      sync.Mutex
	size    int          // the ring's current size
	max     int          // the arena's size: the most the ring grows to
	arena   []byte       // reserved on first use; nil when closed or unused
	release func() error // returns the arena to the system
	m       map[spCacheKey]spCacheSlot
	fifo    []spCacheSlot // oldest first; positions ascend around the ring
	head    int           // where the next block is written
	bytes   int           // decoded bytes cached
	closed  bool
	// ghosts remembers recently evicted blocks (ghostQ oldest first);
	// regrets counts those decoded again since the ring last grew.
	ghosts  map[spCacheKey]struct{}
	ghostQ  []spCacheKey
	regrets int
}

// newSPBlockCache returns an empty cache of start bytes that grows to at
// most max bytes.
func newSPBlockCache(start, max int) *spBlockCache {
	return &spBlockCache{size: min(start, max), max: max, m: make(map[spCacheKey]spCacheSlot),
		ghosts: make(map[spCacheKey]struct{})}
}

// copyOut returns a fresh copy of [start, start+length) of the decoded
// block at off of p, or false when the block is not cached or the range
// lies outside it.
func (c *spBlockCache) copyOut(p *spPack, off uint64, start, length uint32) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[spCacheKey{p, off}]
	if !ok || uint64(start)+uint64(length) > uint64(s.n) {
		return nil, false
	}
	b := s.pos + int(start)
	return append([]byte(nil), c.arena[b:b+int(length)]...), true
}

// put copies a verified decoded block into the arena, overwriting the
// oldest blocks as needed.
func (c *spBlockCache) put(p *spPack, off uint64, raw []byte) {
	n := len(raw)
	if c == nil || n == 0 || n > spCacheMaxBlock || n > c.max {
		return
	}
	k := spCacheKey{p, off}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || c.closed {
		return
	}
	c.regret(k)
	if n > c.size {
		return
	}
	if c.arena == nil {
		arena, release, err := reserveArena(c.max)
		if err != nil {
			c.closed = true // no memory for a cache: read without one
			return
		}
		c.arena, c.release = arena, release
	}
	if c.head+n > c.size {
		// No room before the end: what lies there is the oldest; wrap.
		for len(c.fifo) > 0 && c.fifo[0].pos >= c.head {
			c.evictOldest()
		}
		c.head = 0
	}
	for len(c.fifo) > 0 && (c.fifo[0].pos >= c.head && c.fifo[0].pos < c.head+n || len(c.fifo) >= spCacheBlocks) {
		c.evictOldest()
	}
	s := spCacheSlot{key: k, pos: c.head, n: n}
	copy(c.arena[s.pos:s.pos+n], raw)
	c.m[k] = s
	c.fifo = append(c.fifo, s)
	c.head += n
	c.bytes += n
}

// regret notes that block k is being decoded again; if the ring evicted it
// recently, the ring was too small for this reader, and after spGhostGrow
// such blocks it doubles. The caller holds the lock.
func (c *spBlockCache) regret(k spCacheKey) {
	if _, ok := c.ghosts[k]; !ok {
		return
	}
	delete(c.ghosts, k)
	if c.regrets++; c.regrets >= spGhostGrow && c.size < c.max {
		c.size = min(2*c.size, c.max)
		c.regrets = 0
	}
}

// evictOldest drops the oldest block, remembering it as a ghost; the
// caller holds the lock.
func (c *spBlockCache) evictOldest() {
	s := c.fifo[0]
	c.fifo = c.fifo[1:]
	delete(c.m, s.key)
	c.bytes -= s.n
	if len(c.ghostQ) >= spGhosts {
		delete(c.ghosts, c.ghostQ[0])
		c.ghostQ = c.ghostQ[1:]
	}
	c.ghosts[s.key] = struct{}{}
	c.ghostQ = append(c.ghostQ, s.key)
}

// forget drops every block of p (a pack the store closed). Its bytes stay
// in the arena until overwritten, unreachable.
func (c *spBlockCache) forget(p *spPack) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, s := range c.m {
		if k.p == p {
			delete(c.m, k)
			c.bytes -= s.n
		}
	}
	kept := c.fifo[:0]
	for _, s := range c.fifo {
		if s.key.p != p {
			kept = append(kept, s)
		}
	}
	clear(c.fifo[len(kept):])
	c.fifo = kept
	ghosts := c.ghostQ[:0]
	for _, k := range c.ghostQ {
		if k.p == p {
			delete(c.ghosts, k)
		} else {
			ghosts = append(ghosts, k)
		}
	}
	clear(c.ghostQ[len(ghosts):])
	c.ghostQ = ghosts
}

// stats returns the number of cached blocks and their decoded bytes.
func (c *spBlockCache) stats() (blocks, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.bytes
}

// close empties the cache and returns its arena; later puts cache nothing.
func (c *spBlockCache) close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	clear(c.ghosts)
	c.fifo, c.ghostQ, c.head, c.bytes, c.closed = nil, nil, 0, 0, true
	c.arena = nil
	if c.release == nil {
		return nil
	}
	rel := c.release
	c.release = nil
	return rel()
}
