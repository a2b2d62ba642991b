package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// Version 2 of tine's binary frame carries, besides envelopes, the
// sender's storage blocks as they are stored (pack.RawBlock): a receiver
// that verified a block's every object writes the block's bytes into its
// own pack instead of compressing the objects again (re-encoding every
// received block was 15-17% of the receiving side's CPU in a push). The
// header is version 1's with the magic "TINEFRAME\x02"; the body is
//
//	uvarint blocks, uvarint objects, uvarint shallow
//	shallow × (1 byte type code, 32 bytes digest)
//	blocks × (1 byte kind, uvarint decoded length, uvarint envelopes,
//	          envelopes × uvarint length, uvarint payload length, payload)
//	objects × (uvarint length, the stored envelope)
//
// A block's envelopes lie back to back from its first decoded byte and
// fill it, so nothing in a block escapes verification; each is decoded
// and its id derived from its bytes like any frame object. Blocks are
// accepted only where the store would read them whole (pack.MaxRawBlock,
// pack.MaxRawEnvelope), and every bound of version 1 holds, the decoded
// blocks counting towards objects.MaxPackBodyBytes with the body. A
// client sends version 2 in uploads only to a server whose capabilities
// carry TineCaps.FrameBlocks, announced with HeaderFrame:
// FrameBlocksHeaderValue, and asks for it in a fetch with the same header
// only when they also carry TineCaps.FetchBlocks; the server then answers
// with the blocks of its storage packs that hold wanted objects only
// (re-encoding every sent object was a tenth of a fetching client's CPU,
// decoding the blocks to send them another tenth of the server's).
const (
	// FrameBlocksMagic is the magic of a version 2 frame.
	FrameBlocksMagic = "TINEFRAME\x02"
	// FrameBlocksVersion is the version of frames carrying raw blocks:
	// TineCaps.FrameBlocks's value.
	FrameBlocksVersion = 2
	// FrameBlocksHeaderValue is HeaderFrame's value on an upload that
	// may be a version 2 frame, and on a fetch asking for one.
	FrameBlocksHeaderValue = "2"
)

// IsFrameBlocks reports whether b begins with FrameBlocksMagic.
func IsFrameBlocks(b []byte) bool {
	return len(b) >= len(FrameBlocksMagic) && string(b[:len(FrameBlocksMagic)]) == FrameBlocksMagic
}

// WriteFrameBlocks builds a version 2 frame of the raw blocks (whose
// objects' ids are in each block's IDs) and the objects objs, with
// boundary shallow, within the counts of lim (the blocks' objects count),
// its body zstd-compressed when compress. It refuses what WriteFrame
// refuses (the body and the blocks' decoded bytes counting together
// towards objects.MaxPackBodyBytes, as the reader counts them), an id
// repeated across blocks and objects, and a block failing
// pack.RawBlock.CheckShape.
func WriteFrameBlocks(blocks []pack.RawBlock, objs []*objects.Object, shallow []objects.OID, lim objects.PackLimits, compress bool) ([]byte, string, error) {
	n := len(objs)
	for _, b := range blocks {
		n += len(b.IDs)
	}
	if n > lim.Objects || len(shallow) > lim.Shallow {
		return nil, "", fmt.Errorf("write frame: %w: %d objects and %d shallow ids, over %d and %d", ErrBadFrame, n, len(shallow), lim.Objects, lim.Shallow)
	}
	seen := make(map[objects.OID]bool, n+len(shallow))
	var algo objects.Algo
	size, err := shallowSize(shallow, &algo, seen)
	if err != nil {
		return nil, "", err
	}
	size += 3 * binary.MaxVarintLen64
	for i := range blocks {
		b := &blocks[i]
		if err := b.CheckShape(); err != nil {
			return nil, "", fmt.Errorf("write frame: %w: %w", ErrBadFrame, err)
		}
		for _, id := range b.IDs {
			if err := frameID(id, &algo, seen); err != nil {
				return nil, "", err
			}
		}
		size += 1 + (3+len(b.IDs))*binary.MaxVarintLen64 + len(b.Payload)
	}
	lens, objSize, err := objectsSize(objs, &algo, seen)
	if err != nil {
		return nil, "", err
	}
	size += objSize
	raw := 0
	for _, b := range blocks {
		raw += int(b.RawLen)
	}
	if size+raw > objects.MaxPackBodyBytes {
		return nil, "", fmt.Errorf("write frame: %w: a body of up to %d bytes with blocks decoding to %d, over %d", ErrBadFrame, size, raw, objects.MaxPackBodyBytes)
	}
	buf, start := frameBuffer(size, compress)
	body := buf[start:]
	body = binary.AppendUvarint(body, uint64(len(blocks)))
	body = binary.AppendUvarint(body, uint64(len(objs)))
	body = binary.AppendUvarint(body, uint64(len(shallow)))
	body = appendShallow(body, shallow)
	for _, b := range blocks {
		body = append(body, b.Kind)
		body = binary.AppendUvarint(body, uint64(b.RawLen))
		body = binary.AppendUvarint(body, uint64(len(b.Lengths)))
		for _, l := range b.Lengths {
			body = binary.AppendUvarint(body, uint64(l))
		}
		body = binary.AppendUvarint(body, uint64(len(b.Payload)))
		body = append(body, b.Payload...)
	}
	body = appendObjects(body, objs, lens)
	return sealFrame(FrameBlocksMagic, buf[:start+len(body)], start, compress)
}
