package pack

import (
	"bytes"
	"container/heap"
	"context"

	"github.com/tinehq/tine/objects"
)

// ListSizes calls fn once for every distinct object of the open packs, in
// digest order, with the length of its envelope (the bytes a loose copy
// holds). It reads the indexes only: the type is in every index key and
// the envelope length in the index's length table, so no block is read
// or decompressed. Like git count-objects, it does not verify content.
func (s *Store) ListSizes(ctx context.Context, fn func(id objects.OID, size int64) error) error {
	ps, err := s.trusted()
	if err != nil {
		return err
	}
	// Each index's keys are strictly increasing, so a k-way merge of the
	// indexes (a heap of cursors, smallest key on top) yields every object
	// once, in order, without sorting them all.
	var h cursorHeap
	for _, p := range ps {
		if p.idx.count > 0 {
			h = append(h, cursor{x: p.idx})
		}
	}
	heap.Init(&h)
	var last []byte
	for n := 0; len(h) > 0; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		c := &h[0]
		k := c.x.key(c.i)
		size := c.x.u32(c.x.lengths, c.i)
		if c.i++; c.i < c.x.count {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
		if last != nil && bytes.Equal(k, last) {
			continue // the same object in another pack counts once
		}
		last = k
		if err := fn(s.oidOf(k), int64(size)); err != nil {
			return err
		}
	}
	return nil
}

// oidOf spells an index key as an oid of the store's profile.
func (s *Store) oidOf(k []byte) objects.OID {
	t, _ := spTypeOf(k[32]) // checkTables vetted every type code at open
	id := objects.OID{Type: t, Algo: s.algo}
	copy(id.Digest[:], k[:32])
	return id
}

// cursor is a position in one pack's index.
type cursor struct {
	x *spIndex
	i int
}

// cursorHeap orders cursors by their current key (container/heap).
type cursorHeap []cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(a, b int) bool {
	return bytes.Compare(h[a].x.key(h[a].i), h[b].x.key(h[b].i)) < 0
}
func (h cursorHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *cursorHeap) Push(c any)   { *h = append(*h, c.(cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
