package pack

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestBlockCacheRingBoundedAndExact(t *testing.T) {
	// Blocks of random sizes go through a small ring many times over: the
	// cache never holds more than its bound, a cached block always reads
	// back exactly the bytes put (no overwritten neighbour), the newest
	// block is always cached, and closing returns the arena.
	const size = 64 << 10
	c := newSPBlockCache(size)
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
