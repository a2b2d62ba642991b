package pack

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tinehq/tine/objects"
)

// Reading a whole pack in pack order (Walk, VerifyEach): the blocks are
// read sequentially, each decoded once, and every entry of a block is
// copied out and re-hashed (DecodeEnvelopeAs), exactly as Get does. A
// damaged block makes each of its entries an error naming that entry's
// object; the walk goes on with the next block, so one bad block never
// hides the rest of the pack.

// spGroup is one block and the entries it holds, in envelope order.
type spGroup struct {
	e   spEntry // the first entry: the block's offset, size and CRC
	idx []int   // entry numbers
}

// groups returns the pack's blocks in pack order, or, when tiled is false
// (the blocks do not tile the pack, which Verify reports), one group per
// entry so every entry is read on its own.
func (p *spPack) groups(tiled bool) []spGroup {
	order := p.entriesByOffset()
	var gs []spGroup
	for _, i := range order {
		e := p.idx.entry(i)
		if tiled && len(gs) > 0 && gs[len(gs)-1].e.off == e.off {
			gs[len(gs)-1].idx = append(gs[len(gs)-1].idx, i)
			continue
		}
		gs = append(gs, spGroup{e: e, idx: []int{i}})
	}
	return gs
}

// spJob is one block to decode: its group and its bytes (nil for an entry
// read on its own through read).
type spJob struct {
	g   spGroup
	blk []byte
	// raw is the decoded envelope of a large block, or its error.
	raw    []byte
	rawErr error
}

// spDeliver receives entry i's verified object or its error.
type spDeliver func(i int, o *objects.Object, err error) error

// scan reads the groups gs in order and hands each entry to deliver. src,
// when not nil, is positioned at the first group's block and yields the
// blocks back to back (they tile the pack); otherwise blocks are read with
// ReadAt. With workers > 1, blocks are decoded and delivered on that many
// goroutines besides the caller's (deliver must then be safe for
// concurrent use and its error is ignored); otherwise in order on the
// calling goroutine, and deliver's error stops the scan. The error is a read failure, a cancellation or
// deliver's.
func (p *spPack) scan(ctx context.Context, gs []spGroup, src io.Reader, workers int, deliver spDeliver) error {
	run := func(j *spJob, scratch *[]byte) error { return p.decodeJob(j, scratch, deliver) }
	var jobs chan *spJob
	var wg sync.WaitGroup
	if workers > 1 {
		jobs = make(chan *spJob, 2*workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var scratch []byte
				for j := range jobs {
					run(j, &scratch)
				}
			}()
		}
		defer wg.Wait()
		defer close(jobs)
	}
	var scratch []byte
	for n, g := range gs {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		j, err := p.readJob(g, src)
		if err != nil {
			return err
		}
		// A large object is re-hashed here, before the next block is read,
		// so at most one is held in memory at a time.
		if jobs != nil && j.blk != nil {
			jobs <- j
			continue
		}
		if err := run(j, &scratch); err != nil && jobs == nil {
			return err
		}
	}
	return nil
}

// readJob reads the block of g from src (or with ReadAt). A large
// single-object block is decoded here, streamed, so only one such object
// is held at a time; a damaged one is recorded in the job, while a failure
// to read the file is returned.
func (p *spPack) readJob(g spGroup, src io.Reader) (*spJob, error) {
	e := g.e
	j := &spJob{g: g}
	id := p.idx.oid(g.idx[0], p.algo)
	switch {
	case src == nil && len(g.idx) == 1:
		// Read on its own (blocks not tiled, or a large block): Get's path.
		j.raw, j.rawErr = p.envelope(id, p.idx.entry(g.idx[0]))
		return j, nil
	case len(g.idx) == 1 && spIsLargeBlock(e) && !p.isDeltaBlock(e):
		lr := &io.LimitedReader{R: src, N: int64(e.size)}
		j.raw, j.rawErr = p.streamBlock(id, e, lr)
		if _, err := io.Copy(io.Discard, lr); err != nil {
			return nil, fmt.Errorf("read %s.pack: %w", p.name, err)
		}
		if lr.N != 0 {
			return nil, fmt.Errorf("read %s.pack: %w", p.name, io.ErrUnexpectedEOF)
		}
		return j, nil
	}
	j.blk = make([]byte, e.size)
	var err error
	if src != nil {
		_, err = io.ReadFull(src, j.blk)
	} else {
		_, err = p.f.ReadAt(j.blk, int64(e.off))
	}
	if err != nil {
		return nil, fmt.Errorf("read %s.pack at %d: %w", p.name, e.off, err)
	}
	return j, nil
}

// decodeJob decodes one job's block into *scratch and delivers each of its
// entries, re-hashed.
func (p *spPack) decodeJob(j *spJob, scratch *[]byte, deliver spDeliver) error {
	if j.blk == nil {
		i := j.g.idx[0]
		id := p.idx.oid(i, p.algo)
		if j.rawErr != nil {
			return deliver(i, nil, j.rawErr)
		}
		o, err := objects.DecodeEnvelopeAs(id, j.raw)
		return deliver(i, o, err)
	}
	if len(j.blk) > 0 && j.blk[0] == spKindDelta && len(j.g.idx) == 1 {
		i := j.g.idx[0]
		id := p.idx.oid(i, p.algo)
		env, err := p.deltaEnvelope(id, p.idx.entry(i), j.blk, 0)
		var o *objects.Object
		if err == nil {
			o, err = objects.DecodeEnvelopeAs(id, env)
		}
		return deliver(i, o, err)
	}
	raw, stored, berr := blockRaw(j.g.e, j.blk, *scratch)
	if berr == nil && !stored && cap(raw) > cap(*scratch) && cap(raw) <= spCacheMaxBlock {
		*scratch = raw[:0] // keep the larger decode buffer for the next block
	}
	for _, i := range j.g.idx {
		id := p.idx.oid(i, p.algo)
		e := p.idx.entry(i)
		var o *objects.Object
		err := berr
		if err == nil && uint64(e.start)+uint64(e.length) > uint64(len(raw)) {
			err = errors.New("envelope outside its block")
		}
		if err != nil {
			err = p.corruptEntry(id, e.off, err.Error())
		} else {
			o, err = objects.DecodeEnvelopeAs(id, append([]byte(nil), raw[e.start:e.start+e.length]...))
		}
		if derr := deliver(i, o, err); derr != nil {
			return derr
		}
	}
	return nil
}

// Walk calls fn for every entry of the pack name, in pack order (by block
// offset, then position in the block), each block read and decoded once:
// o is the verified object (re-hashed, as Get returns it), or nil with err
// naming the object when its copy in this pack is damaged; the walk then
// goes on. fn's error stops the walk and is returned; other errors are
// failures to read the pack. An object held twice in the pack is not
// possible (writers skip duplicates), but the same object in other packs is
// not looked at. Walk uses the store's open pack, or opens name alone when
// the store does not hold it.
func (s *Store) Walk(ctx context.Context, name string, fn func(id objects.OID, o *objects.Object, err error) error) error {
	p, done, err := s.packNamed(name)
	if err != nil {
		return err
	}
	defer done()
	tiled := p.checkTiling() == nil
	var src io.Reader
	if tiled {
		src, err = p.sequential(nil)
		if err != nil {
			return err
		}
	}
	return p.scan(ctx, p.groups(tiled), src, 1, func(i int, o *objects.Object, err error) error {
		return fn(p.idx.oid(i, s.algo), o, err)
	})
}

// packNamed returns the open pack name of the store, or opens it alone;
// done releases it.
func (s *Store) packNamed(name string) (*spPack, func(), error) {
	if err := checkPackName(name); err != nil {
		return nil, nil, err
	}
	ps, err := s.trusted()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range ps {
		if p.name == name {
			p.holds.Add(1)
			return p, func() { p.holds.Add(-1) }, nil
		}
	}
	p, err := openSPPack(s.dir, name, s.algo)
	if err != nil {
		return nil, nil, err
	}
	p.store = s
	return p, func() { p.close() }, nil
}

// sequential returns a reader of the pack's blocks, from the first block to
// the trailer, positioned after the header; every byte it reads, header
// included, is also written to sum when sum is not nil.
func (p *spPack) sequential(sum io.Writer) (io.Reader, error) {
	var r io.Reader = io.NewSectionReader(p.f, 0, p.size-spSumSize)
	if sum != nil {
		r = io.TeeReader(r, sum)
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if _, err := br.Discard(spPackHeader); err != nil {
		return nil, fmt.Errorf("read %s.pack: %w", p.name, err)
	}
	return br, nil
}
