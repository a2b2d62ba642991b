package pack

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/tinehq/tine/internal/fsutil"
)

// Merging small packs. Every append writes a pack of its own
// (WriteAppendPack), and a store searches its packs one by one, so the
// small packs are merged as they pile up: when there are more than a
// caller's limit, the smallest are merged so that each remaining pack is
// at least twice the size of all smaller ones together (git's repack
// --geometric=2). Each byte is then copied O(log n) times over a store's
// life, and there are O(log n) packs. A merge copies blocks byte for byte,
// deltas included, after checking each block's CRC-32C against its index:
// it decodes nothing, so its cost is the bytes of the packs it merges.
// Objects stay verified on every read as before.

// MergeResult is what MergeSmall did.
type MergeResult struct {
	// Pack names the merged pack ("" when nothing was merged).
	Pack string
	// Merged names the packs merged into it and removed.
	Merged []string
}

// MergeSmall merges the smallest packs of the store (see above) when it
// holds more than limit packs, durably: the merged pack is committed
// (fsynced, renamed, directory fsynced) before the merged packs are
// removed (RemovePack). The caller must keep other
// mergers and gc out (plumbing holds the gc lock); readers and writers of
// new packs may run alongside.
func (s *Store) MergeSmall(ctx context.Context, limit int) (MergeResult, error) {
	var res MergeResult
	if err := s.ensureOpen(); err != nil {
		return res, err
	}
	ps := *s.packs.Load()
	if len(ps) <= limit {
		return res, nil
	}
	pick := geometricPrefix(ps)
	if len(pick) < 2 {
		return res, nil
	}
	// Oldest first, so the merged pack keeps write order.
	slices.Reverse(pick)
	w, err := NewWriter(s.dir, s.algo, Options{DeltaDepth: -1})
	if err != nil {
		return res, err
	}
	for _, p := range pick {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return res, err
		}
		if err := w.copyPack(p); err != nil {
			w.Abort()
			return res, fmt.Errorf("merge storage pack %s: %w", p.name, err)
		}
	}
	name, err := w.Commit()
	if err != nil {
		return res, err
	}
	if err := s.install(name, w.entries); err != nil {
		return res, err
	}
	res.Pack = name
	for _, p := range pick {
		if p.name == name {
			continue
		}
		if err := s.RemovePack(p.name); err != nil {
			return res, err
		}
		res.Merged = append(res.Merged, p.name)
	}
	if err := fsutil.SyncDir(s.dir); err != nil {
		return res, &fsutil.UnknownStateError{Path: s.dir, Err: err}
	}
	return res, s.Reload()
}

// geometricPrefix returns the packs to merge, smallest first: the shortest
// run of the smallest packs after which every pack is at least twice the
// size of all smaller ones together.
func geometricPrefix(ps []*spPack) []*spPack {
	bySize := slices.Clone(ps)
	slices.SortStableFunc(bySize, func(a, b *spPack) int { return int(min(max(a.size-b.size, -1), 1)) })
	k, sum := 0, int64(0)
	for j, p := range bySize {
		if j > 0 && p.size < 2*sum {
			k = j + 1
		}
		sum += p.size
	}
	out := bySize[:k]
	// newest first (the store's order), so the caller can reverse it
	slices.SortStableFunc(out, func(a, b *spPack) int {
		return slices.Index(ps, a) - slices.Index(ps, b)
	})
	return out
}

// copyPack copies every block of p into the pack, byte for byte, after
// checking its CRC-32C. A block holding an object already added (the same
// object written by two appends) is copied object by object instead, each
// read and verified as Get reads it, so the new pack holds each object
// once.
func (w *Writer) copyPack(p *spPack) error {
	if err := p.checkTiling(); err != nil {
		return corruptFile(p.name+".pack", err)
	}
	for _, g := range p.groups(true) {
		dup := false
		for _, i := range g.idx {
			if _, ok := w.seen[p.idx.oid(i, p.algo)]; ok {
				dup = true
			}
		}
		if dup {
			for _, i := range g.idx {
				id := p.idx.oid(i, p.algo)
				if _, ok := w.seen[id]; ok {
					continue
				}
				o, err := p.read(id, i, true)
				if err != nil {
					return err
				}
				if err := w.Add(o); err != nil {
					return err
				}
			}
			continue
		}
		if err := w.copyBlock(p, g); err != nil {
			return err
		}
	}
	return nil
}

// copyBlock appends the block of group g of p verbatim, with its entries.
func (w *Writer) copyBlock(p *spPack, g spGroup) error {
	if err := w.flushBlock(); err != nil {
		return err
	}
	off := w.sink.n
	w.sink.crc = 0
	// Streamed, so a large object's block is never held whole, through
	// one buffer for all the blocks (io.Copy would allocate one a block).
	src := &crcReader{r: io.NewSectionReader(p.f, int64(g.e.off), int64(g.e.size))}
	if w.copyBuf == nil {
		w.copyBuf = make([]byte, 32<<10)
	}
	n, err := io.CopyBuffer(&w.sink, src, w.copyBuf)
	if err != nil || n != int64(g.e.size) {
		return fmt.Errorf("copy %s.pack at %d: %d bytes: %w", p.name, g.e.off, n, err)
	}
	if src.crc != g.e.crc {
		return p.corruptEntry(p.idx.oid(g.idx[0], p.algo), g.e.off, "CRC-32C mismatch")
	}
	for _, i := range g.idx {
		e := p.idx.entry(i)
		e.off, e.crc = uint64(off), w.sink.crc
		w.entries = append(w.entries, e)
		w.seen[p.idx.oid(i, p.algo)] = struct{}{}
	}
	return nil
}
