package objects

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxVerifyErrors bounds the per-object errors one Verify reports.
const maxVerifyErrors = 100

// Verify checks one pack of the store's directory from scratch, for fsck:
// the index is re-read and re-validated (trailer, fan-out, order, bounds),
// the whole pack file is re-hashed against its trailer, the blocks must tile
// the pack exactly, and every entry is read back (CRC-32C, decompression,
// re-derived oid). It returns the number of objects verified; the error
// joins the damaged objects' errors (at most 100), each naming its object.
func (s *PackStore) Verify(ctx context.Context, name string) (int, error) {
	if hexPart, ok := strings.CutPrefix(name, "pack-"); !ok || !spIsHex(hexPart, 64) {
		return 0, fmt.Errorf("verify storage pack: %q is not a pack name", name)
	}
	p, err := openSPPack(s.dir, name, s.algo)
	if err != nil {
		return 0, err
	}
	defer p.f.Close()
	path := p.name + ".pack"
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(p.f, 0, p.size-spSumSize)); err != nil {
		return 0, fmt.Errorf("verify storage pack %s: %w", path, err)
	}
	if [spSumSize]byte(h.Sum(nil)) != p.idx.packSum {
		return 0, corruptFile(path, errors.New("content does not match its trailer"))
	}
	if err := p.checkTiling(); err != nil {
		return 0, corruptFile(path, err)
	}
	var errs []error
	n := 0
	for _, i := range p.entriesByOffset() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		id := p.idx.oid(i, s.algo)
		if _, err := p.read(id, i); err != nil {
			if len(errs) < maxVerifyErrors {
				errs = append(errs, err)
			}
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// entriesByOffset returns the entry numbers in pack order, so each block is
// decoded once (the pack keeps its last decoded block).
func (p *spPack) entriesByOffset() []int {
	order := make([]int, p.idx.count)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		oa, ob := p.idx.off(a), p.idx.off(b)
		switch {
		case oa < ob:
			return -1
		case oa > ob:
			return 1
		}
		return int(p.idx.u32(p.idx.starts, a)) - int(p.idx.u32(p.idx.starts, b))
	})
	return order
}

// checkTiling verifies that the blocks the entries name follow each other
// from the header to the trailer with no gap or overlap, and that entries
// sharing a block agree on its size and CRC.
func (p *spPack) checkTiling() error {
	next := uint64(spPackHeader)
	var prev spEntry
	for n, i := range p.entriesByOffset() {
		e := p.idx.entry(i)
		if n > 0 && e.off == prev.off {
			if e.size != prev.size || e.crc != prev.crc {
				return fmt.Errorf("entries of the block at %d disagree on its size or CRC", e.off)
			}
			if e.start < prev.start+prev.length {
				return fmt.Errorf("envelopes overlap in the block at %d", e.off)
			}
			prev = e
			continue
		}
		if e.off != next {
			return fmt.Errorf("block at %d, expected one at %d", e.off, next)
		}
		next = e.off + uint64(e.size)
		prev = e
	}
	if next != uint64(p.size)-spSumSize {
		return fmt.Errorf("blocks end at %d, the trailer starts at %d", next, p.size-spSumSize)
	}
	return nil
}
