package pack

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Raw blocks: a block moved between repositories as it is stored. A push
// between tine peers carries the sender's compressed blocks; the receiver
// decodes each (DecodeRawBlock), verifies every envelope in it like any
// received object, and then writes the block's original bytes into its
// own pack (Writer.AddBlock) instead of compressing the objects again,
// as git's index-pack keeps the sender's compressed objects.

// Block kinds a raw block may have: the kinds whose payload decodes on its
// own (a run delta needs its base, so it never travels raw).
const (
	// KindStored is a block whose payload is its envelopes as they are.
	KindStored = spKindStored
	// KindZstd is a block whose payload is zstd frames.
	KindZstd = spKindZstd
)

// MaxRawBlock bounds a raw block's payload and its decoded length: a block
// a Store reads whole (larger ones are streamed as one object and never
// travel raw).
const MaxRawBlock = spStreamRead

// MaxRawEnvelope bounds each envelope of a raw block, for the same reason.
const MaxRawEnvelope = LargeObject

// ErrBadRawBlock reports a raw block that cannot be stored as it is:
// corrupt, over a bound, or not exactly the envelopes it declares.
var ErrBadRawBlock = errors.New("invalid raw block")

// RawBlock is one block as a pack stores it (its kind and decoded length
// from the block header, its payload) with the envelopes it decodes to,
// back to back from offset 0 and filling it.
type RawBlock struct {
	// Kind is KindStored or KindZstd.
	Kind byte
	// RawLen is the decoded length, the sum of Lengths.
	RawLen uint32
	// Payload is the block's bytes after its header.
	Payload []byte
	// IDs are the block's objects in block order.
	IDs []objects.OID
	// Lengths are their envelopes' lengths.
	Lengths []uint32
}

// CheckShape refuses a block whose header fields cannot be what a Store
// reads whole: an unknown kind, a payload or decoded length over
// MaxRawBlock, an envelope empty or over MaxRawEnvelope, lengths not
// summing to RawLen, a stored payload of another length or a zstd payload
// too short to decode to RawLen. It allocates nothing.
func (b *RawBlock) CheckShape() error {
	if b.Kind != KindStored && b.Kind != KindZstd {
		return fmt.Errorf("%w: kind %d", ErrBadRawBlock, b.Kind)
	}
	if b.RawLen > MaxRawBlock || len(b.Payload)+spBlockHeader > MaxRawBlock {
		return fmt.Errorf("%w: %d bytes decoding to %d, over %d", ErrBadRawBlock, len(b.Payload), b.RawLen, MaxRawBlock)
	}
	if len(b.IDs) != len(b.Lengths) || len(b.IDs) == 0 {
		return fmt.Errorf("%w: %d ids for %d envelopes", ErrBadRawBlock, len(b.IDs), len(b.Lengths))
	}
	var sum uint64
	for _, n := range b.Lengths {
		if n == 0 || n > MaxRawEnvelope {
			return fmt.Errorf("%w: an envelope of %d bytes", ErrBadRawBlock, n)
		}
		sum += uint64(n)
	}
	if sum != uint64(b.RawLen) {
		return fmt.Errorf("%w: envelopes of %d bytes in a block of %d", ErrBadRawBlock, sum, b.RawLen)
	}
	switch {
	case b.Kind == KindStored && len(b.Payload) != int(b.RawLen):
		return fmt.Errorf("%w: a stored block of %d bytes declares %d", ErrBadRawBlock, len(b.Payload), b.RawLen)
	case b.Kind == KindZstd && uint64(b.RawLen) > zstdMaxDecoded(len(b.Payload)):
		return fmt.Errorf("%w: a zstd block of %d bytes declares %d, more than it can decode to", ErrBadRawBlock, len(b.Payload), b.RawLen)
	}
	return nil
}

// DecodeRawBlock checks b's shape (CheckShape) and decodes its payload
// into dst's storage (capacity at least RawLen, else a new buffer),
// exactly as a Store's read of the stored block decodes it, refusing a
// payload that decodes to any other length. The envelopes are the
// caller's to verify.
func DecodeRawBlock(b *RawBlock, dst []byte) ([]byte, error) {
	if err := b.CheckShape(); err != nil {
		return nil, err
	}
	if b.Kind == KindStored {
		return append(dst[:0], b.Payload...), nil
	}
	if uint32(cap(dst)) < b.RawLen {
		dst = make([]byte, 0, b.RawLen)
	}
	raw, err := decodeBlockInto(b.Payload, b.RawLen, dst[:0])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRawBlock, err)
	}
	return raw, nil
}

// RawBlocks finds, for ids (distinct oids of the store's profile), the
// blocks of the store's packs that hold nothing but objects of ids, and
// returns them as stored, each block's CRC-32C checked, with covered[i]
// set for every ids[i] one of them holds. An object is looked up where
// Get finds it first; blocks that are run deltas, read in streams,
// damaged or shared with objects outside ids are left out, so their
// objects are left for the caller to read and send one by one. Only a
// cancelled ctx or packs that cannot be opened fail it.
func (s *Store) RawBlocks(ctx context.Context, ids []objects.OID) (blocks []RawBlock, covered []bool, err error) {
	covered = make([]bool, len(ids))
	if err := s.ensureOpen(); err != nil {
		return nil, covered, err
	}
	// The index says which envelopes a block holds: believe it only once
	// it is verified (index_trust.go).
	packs, err := s.trusted()
	if err != nil {
		return nil, covered, err
	}
	type blockKey struct {
		p   *spPack
		off uint64
	}
	groups := map[blockKey][]rawMember{}
	var order []blockKey
	for i, id := range ids {
		if id.Algo != s.algo || !id.Type.Valid() {
			continue
		}
		k := spKeyOf(id)
		for _, p := range packs {
			if n, ok := p.idx.find(k); ok {
				bk := blockKey{p, p.idx.off(n)}
				if _, seen := groups[bk]; !seen {
					order = append(order, bk)
				}
				groups[bk] = append(groups[bk], rawMember{id: i, entry: n})
				break
			}
		}
	}
	for _, bk := range order {
		if err := ctx.Err(); err != nil {
			return nil, covered, err
		}
		ms := groups[bk]
		b, ok := bk.p.rawBlock(ids, ms)
		if !ok {
			continue
		}
		for _, m := range ms {
			covered[m.id] = true
		}
		blocks = append(blocks, b)
	}
	return blocks, covered, nil
}

// rawMember is an object asked of RawBlocks: its position in ids and its
// index entry.
type rawMember struct{ id, entry int }

// rawBlock reads the block of the entries ms and returns it as a
// RawBlock when it may travel raw: the entries' envelopes fill it back to
// back from its first byte to its decoded length (so it holds nothing
// else: an envelope's bytes are its object), and it is a stored or zstd
// block read whole, its CRC-32C matching. Entries that leave a gap are
// refused from the index, before anything is read; the block's header
// says whether they reach its end. Counting every entry of the pack per
// block instead cost each call a pass over the whole index.
func (p *spPack) rawBlock(ids []objects.OID, ms []rawMember) (RawBlock, bool) {
	slices.SortFunc(ms, func(a, b rawMember) int {
		return int(p.idx.u32(p.idx.starts, a.entry)) - int(p.idx.u32(p.idx.starts, b.entry))
	})
	e := p.idx.entry(ms[0].entry)
	if e.size <= spBlockHeader || e.size > MaxRawBlock || p.idx.checkEntry(ms[0].entry, p.size) != nil {
		return RawBlock{}, false
	}
	b := RawBlock{IDs: make([]objects.OID, len(ms)), Lengths: make([]uint32, len(ms))}
	next := uint64(0)
	for j, m := range ms {
		x := p.idx.entry(m.entry)
		if x.off != e.off || x.size != e.size || x.crc != e.crc || uint64(x.start) != next {
			return RawBlock{}, false // another block's, or a gap: an object not asked for
		}
		b.IDs[j], b.Lengths[j] = ids[m.id], x.length
		next += uint64(x.length)
	}
	blk := make([]byte, e.size)
	if _, err := p.f.ReadAt(blk, int64(e.off)); err != nil || crc32.Checksum(blk, crc32c) != e.crc {
		return RawBlock{}, false
	}
	b.Kind, b.RawLen, b.Payload = blk[0], binary.BigEndian.Uint32(blk[1:spBlockHeader]), blk[spBlockHeader:]
	if b.CheckShape() != nil {
		return RawBlock{}, false // the envelopes end short of the block's: more follow
	}
	return b, true
}

// AddBlock appends b to the pack as it is, its objects indexed at their
// places in it; the caller has decoded it with DecodeRawBlock and
// verified every envelope (each derives its id in b.IDs). The block
// pending from Add is written first, so blocks still tile the pack. An
// object already in the pack, or twice in b, is refused: an index holds
// each key once.
func (w *Writer) AddBlock(b *RawBlock) error {
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return errors.New("storage pack already committed or aborted")
	}
	if err := b.CheckShape(); err != nil {
		return err
	}
	if len(w.seen)+len(b.IDs) > MaxObjects {
		return fmt.Errorf("storage pack full (%d objects)", MaxObjects)
	}
	// Each id joins seen as it is checked, so a repeat within the block
	// is found in constant time (a block may hold tens of thousands of
	// objects); a refused block takes its ids out again.
	for i, id := range b.IDs {
		err := objects.CheckPut(w.algo, &objects.Object{ID: id, Type: id.Type})
		if _, dup := w.seen[id]; dup && err == nil {
			err = fmt.Errorf("%w: object %s is already in the pack", ErrBadRawBlock, id)
			if slices.Contains(b.IDs[:i], id) { // on the refusal only
				err = fmt.Errorf("%w: object %s twice", ErrBadRawBlock, id)
			}
		}
		if err != nil {
			for _, added := range b.IDs[:i] {
				delete(w.seen, added)
			}
			return err
		}
		w.seen[id] = struct{}{}
	}
	if w.err = w.flushBlock(); w.err != nil {
		return w.err
	}
	off := w.sink.n
	w.sink.crc = 0
	var hdr [spBlockHeader]byte
	hdr[0] = b.Kind
	binary.BigEndian.PutUint32(hdr[1:], b.RawLen)
	w.sink.Write(hdr[:])
	if _, err := w.sink.Write(b.Payload); err != nil {
		w.err = fmt.Errorf("write storage pack: %w", err)
		return w.err
	}
	start := uint32(0)
	for i, id := range b.IDs {
		w.entries = append(w.entries, spEntry{key: spKeyOf(id), off: uint64(off), size: uint32(w.sink.n - off),
			start: start, length: b.Lengths[i], crc: w.sink.crc})
		start += b.Lengths[i]
	}
	return nil
}

// WritePackBlocks is WritePack writing the raw blocks first (AddBlock),
// then objs, which must not repeat an object of the blocks.
func (s *Store) WritePackBlocks(ctx context.Context, blocks []RawBlock, objs []*objects.Object, opt Options) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(objs) == 0 && len(blocks) == 0 {
		return "", nil
	}
	w, err := NewWriter(s.dir, s.algo, opt)
	if err != nil {
		return "", err
	}
	for i := range blocks {
		if err := w.AddBlock(&blocks[i]); err != nil {
			w.Abort()
			return "", err
		}
	}
	return s.finishPack(ctx, w, objs)
}
