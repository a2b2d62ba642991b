package pack

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestBlockCacheRingBoundedAndExact(t *testing.T) {
	// Blocks of random sizes go through a small ring many times over: the
	// cache never holds more than its bound, a cached block always reads
	// back exactly the bytes put (no overwritten neighbour), the newest
	// block is always cached, and closing returns the arena.
	const size = 64 << 10
	c := newSPBlockCache(size, size)
	p := &spPack{}
	r := rand.New(rand.NewPCG(9, 9))
	want := map[uint64][]byte{}
	for off := range uint64(3000) {
		raw := make([]byte, 1+r.IntN(12<<10))
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		want[off] = raw
		c.put(p, off, raw)
		if got, ok := c.copyOut(p, off, 0, uint32(len(raw))); !ok || !bytes.Equal(got, raw) {
			t.Fatalf("block %d: newest block not cached intact", off)
		}
		n, b := c.stats()
		if b > size || n != len(c.fifo) || n != len(c.m) {
			t.Fatalf("after block %d: %d blocks (%d in the ring), %d bytes; bound %d", off, n, len(c.fifo), b, size)
		}
	}
	hits := 0
	for off, raw := range want {
		if got, ok := c.copyOut(p, off, 0, uint32(len(raw))); ok {
			hits++
			if !bytes.Equal(got, raw) {
				t.Fatalf("block %d reads back other bytes", off)
			}
		}
	}
	if hits < 5 {
		t.Fatalf("only %d blocks cached", hits)
	}
	if _, ok := c.copyOut(p, 2999, 1, uint32(len(want[2999]))); ok {
		t.Fatal("a range past the block's end was served")
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	c.put(p, 1, []byte("x"))
	if n, _ := c.stats(); n != 0 || c.arena != nil {
		t.Fatal("a closed cache keeps blocks")
	}
}

// spCacheRead plays a reader asking for block off of p: a hit, or a miss
// that decodes the block (8 KiB) and puts it.
func spCacheRead(c *spBlockCache, p *spPack, off uint64, raw []byte) {
	if _, ok := c.copyOut(p, off, 0, 1); !ok {
		c.put(p, off, raw)
	}
}

func TestBlockCacheGrowsOnlyWhenBlocksAreReread(t *testing.T) {
	// A reader that goes through blocks in order (each read by its
	// objects one after another, never again) keeps the ring at its start
	// size however much it reads; a reader coming back to evicted blocks
	// in random order grows it to the bound, and no further.
	raw := make([]byte, 8<<10)
	p := &spPack{}
	seq := newSPBlockCache(spCacheStart, spCacheBytes)
	defer seq.close()
	for off := range uint64(2 * spCacheBytes / len(raw)) {
		for range 8 {
			spCacheRead(seq, p, off, raw)
		}
	}
	if seq.size != spCacheStart {
		t.Fatalf("reading in order grew the ring to %d bytes", seq.size)
	}
	rnd := newSPBlockCache(spCacheStart, spCacheBytes)
	defer rnd.close()
	blocks := 2 * spCacheBytes / len(raw)
	r := rand.New(rand.NewPCG(1, 2))
	for range 8 * blocks {
		spCacheRead(rnd, p, uint64(r.IntN(blocks)), raw)
	}
	n, b := rnd.stats()
	if rnd.size != spCacheBytes || b > spCacheBytes || n*len(raw) != b {
		t.Fatalf("random rereads: ring %d bytes holding %d blocks, %d bytes; want the bound %d", rnd.size, n, b, spCacheBytes)
	}
}

func TestStoragePackShuffledGetsThroughGrowingCache(t *testing.T) {
	// Random reads of a pack several times the cache's start size, on two
	// goroutines: the ring wraps, evicts and grows under them, and every
	// object still reads back exactly.
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 6000)
	spWriteTestPack(t, dir, objects.BLAKE3, objs, Options{})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for _, i := range append(r.Perm(len(objs)), r.Perm(len(objs))...) {
				got, err := s.Get(context.Background(), objs[i].ID)
				if err != nil || !bytes.Equal(got.Stored(), objs[i].Stored()) {
					t.Errorf("Get(%s): %v", objs[i].ID, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if s.cache.size <= spCacheStart {
		t.Fatalf("the cache stayed at %d bytes under random rereads", s.cache.size)
	}
}
