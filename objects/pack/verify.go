package pack

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
)

// maxVerifyErrors bounds the per-object errors one Verify reports.
const maxVerifyErrors = 100

// Verify checks one pack of the store's directory from scratch, for fsck:
// the index is re-read and re-validated (trailer, fan-out, order, bounds),
// the whole pack file is re-hashed against its trailer, the blocks must tile
// the pack exactly, and every entry is read back (CRC-32C, decompression,
// re-derived oid). It returns the number of objects verified; the error
// joins the structural damage and the damaged objects' errors (at most
// 100), each naming its object. It is VerifyEach without a callback.
func (s *Store) Verify(ctx context.Context, name string) (int, error) {
	return s.VerifyEach(ctx, name, nil)
}

// VerifyEach is Verify that also hands every entry to fn, so a caller
// checking objects further (fsck) reads the pack once: fn gets each
// entry's oid and either its verified object (re-hashed, as Get returns
// it) or the error naming what is wrong with that copy. The pack is read
// sequentially once, its SHA-256 trailer computed over the same bytes, and
// each block is decoded once; blocks are decoded and re-hashed on
// GOMAXPROCS goroutines, so fn is called concurrently and in no particular
// order, exactly once per index entry (unless the pack cannot be opened or
// read at all, or ctx ends). fn may be nil.
func (s *Store) VerifyEach(ctx context.Context, name string, fn func(id objects.OID, o *objects.Object, err error)) (int, error) {
	if err := checkPackName(name); err != nil {
		return 0, err
	}
	p, err := openSPPack(s.dir, name, s.algo)
	if err != nil {
		return 0, err
	}
	defer p.close()
	p.store = s
	path := p.name + ".pack"
	v := &spVerify{fn: fn, algo: s.algo, p: p}
	sum := sha256.New()
	tileErr := p.checkTiling()
	var src io.Reader
	if tileErr == nil {
		if src, err = p.sequential(sum); err != nil {
			return 0, err
		}
	} else if _, err := io.Copy(sum, io.NewSectionReader(p.f, 0, p.size-spSumSize)); err != nil {
		return 0, fmt.Errorf("verify storage pack %s: %w", path, err)
	}
	if err := p.scan(ctx, p.groups(tileErr == nil), src, runtime.GOMAXPROCS(0), v.entry); err != nil {
		return v.count(), fmt.Errorf("verify storage pack %s: %w", path, err)
	}
	var structural []error
	if tileErr != nil {
		structural = append(structural, corruptFile(path, tileErr))
	}
	if [spSumSize]byte(sum.Sum(nil)) != p.idx.packSum {
		structural = append(structural, corruptFile(path, errors.New("content does not match its trailer")))
	}
	return v.count(), errors.Join(append(structural, v.errs...)...)
}

// spVerify collects the verdicts of VerifyEach's workers.
type spVerify struct {
	fn   func(id objects.OID, o *objects.Object, err error)
	algo objects.Algo
	p    *spPack
	mu   sync.Mutex
	n    int
	errs []error
}

// entry records entry i's verdict and passes it on.
func (v *spVerify) entry(i int, o *objects.Object, err error) error {
	v.mu.Lock()
	if err == nil {
		v.n++
	} else if len(v.errs) < maxVerifyErrors {
		v.errs = append(v.errs, err)
	}
	v.mu.Unlock()
	if v.fn != nil {
		v.fn(v.p.idx.oid(i, v.algo), o, err)
	}
	return nil
}

// count returns the entries verified so far.
func (v *spVerify) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.n
}

// checkPackName refuses anything but "pack-" and 64 lowercase hex digits.
func checkPackName(name string) error {
	if hexPart, ok := strings.CutPrefix(name, "pack-"); !ok || !spIsHex(hexPart, 64) {
		return fmt.Errorf("storage pack: %q is not a pack name", name)
	}
	return nil
}

// entriesByOffset returns the entry numbers in pack order: by block offset,
// then by position in the block.
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
