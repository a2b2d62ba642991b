package pack

import (
	"container/list"
	"sync"
)

// Decoded-block cache of a Store. A random read of a small object costs
// the decompression of its whole block (8 KiB by default, about eight
// objects), so readers that visit neighbouring objects out of order (the
// workers of cat-object --batch each take a run of queries) would decode
// the same block several times. The store keeps the most recently used
// decoded multi-object blocks, bounded by count and bytes. Cached bytes are
// immutable once published, and every object read from them is still
// copied out and re-hashed (DecodeEnvelopeAs), so the cache can make a read
// cheaper but never makes a damaged object pass: a block is cached only
// after its CRC-32C matched and it decompressed to its declared length.
const (
	// spCacheBlocks bounds the number of cached blocks.
	spCacheBlocks = 64
	// spCacheBytes bounds the decoded bytes cached.
	spCacheBytes = 2 << 20
	// spCacheMaxBlock is the largest decoded block worth caching; larger
	// blocks (written with a large Options.BlockSize) are not kept.
	spCacheMaxBlock = 256 << 10
)

// spCacheKey names a block: its pack and its offset.
type spCacheKey struct {
	p   *spPack
	off uint64
}

// spCacheItem is one cached block.
type spCacheItem struct {
	key spCacheKey
	raw []byte
}

// spBlockCache is a mutex-guarded LRU of decoded blocks, safe for
// concurrent use.
type spBlockCache struct {
	mu    sync.Mutex
	lru   list.List // of *spCacheItem, most recent first
	m     map[spCacheKey]*list.Element
	bytes int
}

// newSPBlockCache returns an empty cache.
func newSPBlockCache() *spBlockCache {
	return &spBlockCache{m: make(map[spCacheKey]*list.Element, spCacheBlocks)}
}

// get returns the decoded block at off of p, or nil. The caller must not
// modify the returned bytes.
func (c *spBlockCache) get(p *spPack, off uint64) []byte {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[spCacheKey{p, off}]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*spCacheItem).raw
}

// put publishes a verified decoded block, evicting the least recently used
// ones beyond the bounds. raw must never be modified afterwards.
func (c *spBlockCache) put(p *spPack, off uint64, raw []byte) {
	if c == nil || len(raw) > spCacheMaxBlock {
		return
	}
	k := spCacheKey{p, off}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.m[k] = c.lru.PushFront(&spCacheItem{key: k, raw: raw})
	c.bytes += len(raw)
	for c.lru.Len() > spCacheBlocks || c.bytes > spCacheBytes {
		c.evict(c.lru.Back())
	}
}

// forget drops every block of p (a pack the store closed).
func (c *spBlockCache) forget(p *spPack) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*spCacheItem).key.p == p {
			c.evict(el)
		}
		el = next
	}
}

// evict removes el; the caller holds the lock.
func (c *spBlockCache) evict(el *list.Element) {
	it := c.lru.Remove(el).(*spCacheItem)
	delete(c.m, it.key)
	c.bytes -= len(it.raw)
}
