package wire

import (
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// ReadFrameBlocks verifies a binary frame of version 1 or 2 and returns
// its objects (every block's, in block order, then the others, each
// decoded with hash profile a and its id derived from its bytes), its
// shallow ids and, for version 2, its raw blocks with each block's IDs
// filled in from its envelopes. Beyond what ReadFrame refuses it refuses,
// with an error wrapping ErrBadFrame: a block failing
// pack.RawBlock.CheckShape (an unknown kind, over pack.MaxRawBlock, an
// envelope over pack.MaxRawEnvelope, lengths not filling the block, a
// decoded length its payload cannot reach), checked before anything of
// its size is allocated; blocks decoding to more than
// objects.MaxPackBodyBytes together; a payload that does not decode to
// exactly its declared length; and counts over lim with the blocks'
// envelopes counted as objects. The body and the decoded blocks together
// stay within objects.MaxPackBodyBytes. A block's payload aliases frame.
func ReadFrameBlocks(frame []byte, a objects.Algo, lim objects.PackLimits) (*objects.PackFrame, []pack.RawBlock, error) {
	if !a.Valid() {
		return nil, nil, fmt.Errorf("read frame: %w: %q", objects.ErrUnknownAlgo, a)
	}
	if IsFrame(frame) {
		pf, err := ReadFrame(frame, a, lim)
		return pf, nil, err
	}
	id, body, err := frameBody(frame)
	if err != nil {
		return nil, nil, err
	}
	pf, blocks, err := parseFrameBlocksBody(body, a, lim)
	if err != nil {
		return nil, nil, fmt.Errorf("frame %s: %w", id, err)
	}
	pf.ID = id
	return pf, blocks, nil
}

// parseFrameBlocksBody decodes a verified version 2 body (see
// ReadFrameBlocks).
func parseFrameBlocksBody(body []byte, a objects.Algo, lim objects.PackLimits) (*objects.PackFrame, []pack.RawBlock, error) {
	r := frameReader{b: body}
	nBlocks, nObj, nShallow := r.uvarint(), r.uvarint(), r.uvarint()
	if r.err != nil {
		return nil, nil, r.err
	}
	if nBlocks > uint64(lim.Objects) || nObj > uint64(lim.Objects) || nShallow > uint64(lim.Shallow) {
		return nil, nil, fmt.Errorf("%w: %d blocks, %d objects and %d shallow ids, over %d and %d", ErrBadFrame, nBlocks, nObj, nShallow, lim.Objects, lim.Shallow)
	}
	// A shallow entry takes 33 bytes, an object at least 2, a block at
	// least 5 (kind, three counts, an envelope length): counts the body
	// cannot hold are refused before anything is allocated.
	if nShallow*33+nObj*2+nBlocks*5 > uint64(len(r.b)) {
		return nil, nil, fmt.Errorf("%w: %d blocks, %d objects and %d shallow ids do not fit %d bytes", ErrBadFrame, nBlocks, nObj, nShallow, len(r.b))
	}
	seen := make(map[objects.OID]bool, nObj+nShallow)
	shallow, err := r.shallow(nShallow, a, seen)
	if err != nil {
		return nil, nil, err
	}
	blocks, total, err := r.blocks(nBlocks, nObj, lim, objects.MaxPackBodyBytes-len(body))
	if err != nil {
		return nil, nil, err
	}
	entries := make([][]byte, 0, nObj)
	for i := uint64(0); i < nObj && r.err == nil; i++ {
		stored := r.next(r.uvarint())
		if r.err == nil {
			entries = append(entries, stored)
		}
	}
	if r.err != nil {
		return nil, nil, fmt.Errorf("objects[%d]: %w", len(entries), r.err)
	}
	if len(r.b) != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes follow the last object", ErrBadFrame, len(r.b))
	}
	bobjs, berrs := decodeBlocks(a, blocks, total)
	objs, errs := decodeEntries(a, entries)
	pf := &objects.PackFrame{Objects: make([]*objects.Object, 0, total.objects+len(objs)), Shallow: shallow}
	for j := range blocks {
		if berrs[j] != nil {
			return nil, nil, fmt.Errorf("%w: blocks[%d]: %w", ErrBadFrame, j, berrs[j])
		}
		for k, o := range bobjs[j] {
			if seen[o.ID] {
				return nil, nil, fmt.Errorf("%w: blocks[%d] object %d, %s, is sent twice or also named shallow", ErrBadFrame, j, k, o.ID)
			}
			seen[o.ID] = true
			blocks[j].IDs[k] = o.ID
			pf.Objects = append(pf.Objects, o)
		}
	}
	for i, o := range objs {
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("%w: objects[%d]: %w", ErrBadFrame, i, errs[i])
		}
		if seen[o.ID] {
			return nil, nil, fmt.Errorf("%w: objects[%d], %s, is sent twice or also named shallow", ErrBadFrame, i, o.ID)
		}
		seen[o.ID] = true
		pf.Objects = append(pf.Objects, o)
	}
	return pf, blocks, nil
}

// blockTotals is what a frame's blocks add up to.
type blockTotals struct {
	objects int
	raw     int
}

// blocks reads n block headers and payloads (aliasing the body), each
// checked by pack.RawBlock.CheckShape, their envelopes and the nObj
// objects still to come within lim.Objects and their decoded lengths
// within budget (what objects.MaxPackBodyBytes leaves beside the body, so
// a frame's body and its decoded blocks together stay within one body's
// bound), all before anything of a declared size is allocated.
func (r *frameReader) blocks(n, nObj uint64, lim objects.PackLimits, budget int) ([]pack.RawBlock, blockTotals, error) {
	var t blockTotals
	blocks := make([]pack.RawBlock, 0, n)
	for j := uint64(0); j < n; j++ {
		kind := r.next(1)
		rawLen, nEnv := r.uvarint(), r.uvarint()
		if r.err != nil {
			return nil, t, fmt.Errorf("blocks[%d]: %w", j, r.err)
		}
		if rawLen > pack.MaxRawBlock || nEnv == 0 || nEnv > uint64(len(r.b)) || uint64(t.objects)+nEnv+nObj > uint64(lim.Objects) {
			return nil, t, fmt.Errorf("%w: blocks[%d]: %d envelopes decoding to %d bytes, beyond the frame's bounds", ErrBadFrame, j, nEnv, rawLen)
		}
		b := pack.RawBlock{Kind: kind[0], RawLen: uint32(rawLen), Lengths: make([]uint32, nEnv), IDs: make([]objects.OID, nEnv)}
		for k := range b.Lengths {
			l := r.uvarint()
			if l > pack.MaxRawEnvelope {
				return nil, t, fmt.Errorf("%w: blocks[%d]: an envelope of %d bytes, over %d", ErrBadFrame, j, l, pack.MaxRawEnvelope)
			}
			b.Lengths[k] = uint32(l)
		}
		b.Payload = r.next(r.uvarint())
		if r.err != nil {
			return nil, t, fmt.Errorf("blocks[%d]: %w", j, r.err)
		}
		if err := b.CheckShape(); err != nil {
			return nil, t, fmt.Errorf("%w: blocks[%d]: %w", ErrBadFrame, j, err)
		}
		t.objects += int(nEnv)
		t.raw += int(rawLen)
		if t.raw > budget {
			return nil, t, fmt.Errorf("%w: blocks decoding to more than %d bytes beside a body of %d", ErrBadFrame, budget, objects.MaxPackBodyBytes-budget)
		}
		blocks = append(blocks, b)
	}
	return blocks, t, nil
}

// decodeBlocks decodes every block into one buffer of t.raw bytes (each
// exactly as a storage pack's read decodes it) and its envelopes with
// hash profile a, blocks split across the CPUs; it returns each block's
// objects or its first error.
func decodeBlocks(a objects.Algo, blocks []pack.RawBlock, t blockTotals) ([][]*objects.Object, []error) {
	objs := make([][]*objects.Object, len(blocks))
	errs := make([]error, len(blocks))
	arena := make([]byte, t.raw)
	offs := make([]int, len(blocks))
	for j, at := 1, 0; j < len(blocks); j++ {
		at += int(blocks[j-1].RawLen)
		offs[j] = at
	}
	parallel(len(blocks), t.objects, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			b := &blocks[j]
			dst := arena[offs[j] : offs[j] : offs[j]+int(b.RawLen)]
			raw, err := pack.DecodeRawBlock(b, dst)
			if err != nil {
				errs[j] = err
				continue
			}
			objs[j] = make([]*objects.Object, len(b.Lengths))
			at := 0
			for k, l := range b.Lengths {
				env := raw[at : at+int(l) : at+int(l)]
				at += int(l)
				if objs[j][k], err = objects.DecodeEnvelope(a, env); err != nil {
					errs[j] = fmt.Errorf("object %d: %w", k, err)
					break
				}
			}
		}
	})
	return objs, errs
}
