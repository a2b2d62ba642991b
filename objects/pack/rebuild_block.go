package pack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Finding the blocks of a pack without its index (rebuild.go): each
// block's length comes from its own header, a zstd block's from the
// headers of its frames.

// zstdMagic starts every zstd frame (little-endian 0xFD2FB528).
var zstdMagic = [4]byte{0x28, 0xb5, 0x2f, 0xfd}

// readBlock reads the whole block (header and payload) at off.
func readBlock(f *os.File, off, end int64) ([]byte, error) {
	var hdr [spBlockHeader]byte
	if end-off < spBlockHeader {
		return nil, errors.New("truncated block header")
	}
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return nil, err
	}
	kind, rawLen := hdr[0], int64(binary.BigEndian.Uint32(hdr[1:]))
	if rawLen > spMaxRaw {
		return nil, errors.New("block larger than any object")
	}
	var n int64
	switch kind {
	case spKindStored:
		n = rawLen
	case spKindZstd:
		var err error
		if n, err = zstdFramesLen(f, off+spBlockHeader, end-off-spBlockHeader); err != nil {
			return nil, err
		}
	case spKindDelta:
		head := make([]byte, spBlockHeader+spDeltaHeader)
		if end-off < int64(len(head)) {
			return nil, errors.New("truncated delta block")
		}
		if _, err := f.ReadAt(head, off); err != nil {
			return nil, err
		}
		n = deltaBlockLen(head) - spBlockHeader
	default:
		return nil, fmt.Errorf("unknown block kind %d", kind)
	}
	if n > end-off-spBlockHeader || spBlockHeader+n > 1<<32-1 {
		return nil, errors.New("block runs past the trailer")
	}
	blk := make([]byte, spBlockHeader+n)
	if _, err := f.ReadAt(blk, off); err != nil {
		return nil, err
	}
	return blk, nil
}

// zstdFramesLen returns the length of the zstd frames back to back at off
// (at most limit bytes), from their headers.
func zstdFramesLen(r io.ReaderAt, off, limit int64) (int64, error) {
	var n int64
	for {
		fl, err := zstdFrameLen(r, off+n, limit-n)
		if err != nil {
			return 0, err
		}
		n += fl
		var m [4]byte
		if limit-n < 4 {
			return n, nil
		}
		if _, err := r.ReadAt(m[:], off+n); err != nil || m != zstdMagic {
			return n, nil
		}
	}
}

// zstdFrameLen returns the length of the zstd frame at off (RFC 8878 §3.1.1:
// magic, frame header, blocks whose 3-byte headers give their sizes, an
// optional checksum), refusing one longer than limit.
func zstdFrameLen(r io.ReaderAt, off, limit int64) (int64, error) {
	var h [6]byte
	if limit < int64(len(h)) {
		return 0, errors.New("truncated zstd frame")
	}
	if _, err := r.ReadAt(h[:], off); err != nil {
		return 0, err
	}
	if [4]byte(h[:4]) != zstdMagic {
		return 0, errors.New("not a zstd frame")
	}
	fhd := h[4]
	if fhd&0x08 != 0 {
		return 0, errors.New("zstd frame header has its reserved bit set")
	}
	single := fhd&0x20 != 0
	pos := int64(5)
	if !single {
		pos++ // window descriptor
	}
	pos += [4]int64{0, 1, 2, 4}[fhd&3]
	fcs := [4]int64{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && single {
		fcs = 1
	}
	pos += fcs
	for {
		var b [3]byte
		if pos+3 > limit {
			return 0, errors.New("truncated zstd frame")
		}
		if _, err := r.ReadAt(b[:], off+pos); err != nil {
			return 0, err
		}
		bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		pos += 3
		switch (bh >> 1) & 3 {
		case 0, 2: // raw, compressed
			pos += int64(bh >> 3)
		case 1: // RLE: one byte repeated
			pos++
		default:
			return 0, errors.New("reserved zstd block type")
		}
		if pos > limit {
			return 0, errors.New("zstd frame runs past its block")
		}
		if bh&1 != 0 {
			break
		}
	}
	if fhd&0x04 != 0 {
		pos += 4 // content checksum
	}
	if pos > limit {
		return 0, errors.New("zstd frame runs past its block")
	}
	return pos, nil
}
