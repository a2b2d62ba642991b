package pack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/tinehq/tine/objects"
)

// spStreamRead is the block size above which a block is streamed from the
// file instead of read whole.
const spStreamRead = 2 * LargeObject

// corruptEntry reports a damaged block holding id: the stored bytes do not
// yield the object, so it is also an oid mismatch naming the object.
func (p *spPack) corruptEntry(id objects.OID, off uint64, what string) error {
	return fmt.Errorf("object %s: %w: %w", id, ErrCorrupt,
		objects.Errorf(objects.ReasonEnvelopeOidMismatch, "%s.pack: block at offset %d: %s", p.name, off, what))
}

// read returns the verified object of entry i, which the caller found
// under id.
func (p *spPack) read(id objects.OID, i int, parse bool) (*objects.Object, error) {
	e := p.idx.entry(i)
	env, err := p.envelope(id, e)
	if err != nil {
		return nil, err
	}
	if !parse {
		return objects.DecodeEnvelopeUnparsedAs(id, env)
	}
	return objects.DecodeEnvelopeAs(id, env)
}

// envelope returns a fresh copy of the envelope bytes of entry e.
func (p *spPack) envelope(id objects.OID, e spEntry) ([]byte, error) {
	if env, ok := p.cache.copyOut(p, e.off, e.start, e.length); ok {
		return env, nil
	}
	if e.size <= spBlockHeader {
		return nil, p.corruptEntry(id, e.off, "block shorter than its header")
	}
	if env := p.dcache.get(p, e); env != nil {
		return append([]byte(nil), env...), nil
	}
	if spIsLargeBlock(e) && !p.isDeltaBlock(e) {
		return p.streamEnvelope(id, e)
	}
	bp := getBlockBuf()
	defer putBlockBuf(bp)
	blk := append((*bp)[:0], make([]byte, e.size)...)
	*bp = blk
	if _, err := p.f.ReadAt(blk, int64(e.off)); err != nil {
		return nil, fmt.Errorf("object %s: read %s.pack: %w", id, p.name, err)
	}
	if blk[0] == spKindDelta {
		return p.deltaEnvelope(id, e, blk, 0)
	}
	rp := getBlockBuf()
	defer putBlockBuf(rp)
	raw, stored, err := blockRaw(e, blk, (*rp)[:0])
	if err == nil && uint64(e.start)+uint64(e.length) > uint64(len(raw)) {
		err = errors.New("envelope outside its block")
	}
	if err != nil {
		return nil, p.corruptEntry(id, e.off, err.Error())
	}
	if !stored {
		*rp = raw[:0] // keep a grown buffer for the next decode
		if e.start != 0 || e.length != uint32(len(raw)) {
			p.cache.put(p, e.off, raw) // shared with other objects: worth keeping
		}
	}
	return append([]byte(nil), raw[e.start:e.start+e.length]...), nil
}

// spIsLargeBlock reports whether e's block is streamed rather than read
// whole.
func spIsLargeBlock(e spEntry) bool {
	return e.size > spStreamRead || e.length > LargeObject
}

// blockRaw checks a whole block blk (header and payload, e.size bytes)
// read for entry e: its CRC-32C and its header; it returns the decoded
// bytes. A zstd block is decoded into dst's storage when it is large
// enough (else into a new buffer); a stored block's bytes are returned as a
// slice of blk, with stored set. The error describes the damage; callers
// name the object.
func blockRaw(e spEntry, blk, dst []byte) (raw []byte, stored bool, err error) {
	if crc32.Checksum(blk, crc32c) != e.crc {
		return nil, false, errors.New("CRC-32C mismatch")
	}
	kind, rawLen := blk[0], binary.BigEndian.Uint32(blk[1:spBlockHeader])
	payload := blk[spBlockHeader:]
	if rawLen > spMaxRaw {
		return nil, false, errors.New("envelope outside its block")
	}
	switch kind {
	case spKindStored:
		if uint32(len(payload)) != rawLen {
			return nil, false, errors.New("stored block of the wrong length")
		}
		return payload, true, nil
	case spKindZstd:
		if uint64(rawLen) > zstdMaxDecoded(len(payload)) {
			return nil, false, fmt.Errorf("zstd block claims %d bytes, more than its %d can decode to", rawLen, len(payload))
		}
		if uint32(cap(dst)) < rawLen {
			dst = make([]byte, 0, rawLen)
		}
		raw, err := decodeBlockInto(payload, rawLen, dst[:0])
		return raw, false, err
	}
	return nil, false, fmt.Errorf("unknown block kind %d", kind)
}

// decodeBlockInto decompresses one zstd block payload of rawLen bytes into
// dst (empty, with capacity rawLen), refusing any other length; the output
// is never grown past rawLen.
func decodeBlockInto(payload []byte, rawLen uint32, dst []byte) ([]byte, error) {
	d, err := getDecoder()
	if err != nil {
		return nil, err
	}
	defer putDecoder(d)
	raw, err := d.DecodeAll(payload, dst[:0:rawLen])
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if uint32(len(raw)) != rawLen {
		return nil, fmt.Errorf("decoded %d bytes, want %d", len(raw), rawLen)
	}
	return raw, nil
}

// streamEnvelope reads a large single-object block through a streaming
// decoder, so memory holds the object and a zstd window, no compressed
// copy. The CRC is checked once the whole block has been read.
func (p *spPack) streamEnvelope(id objects.OID, e spEntry) ([]byte, error) {
	return p.streamBlock(id, e, io.NewSectionReader(p.f, int64(e.off), int64(e.size)))
}

// streamBlock decodes the large single-object block of entry e from r,
// which yields exactly the block's e.size bytes, header included.
func (p *spPack) streamBlock(id objects.OID, e spEntry, r io.Reader) ([]byte, error) {
	var hdr [spBlockHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("object %s: read %s.pack: %w", id, p.name, err)
	}
	kind, rawLen := hdr[0], binary.BigEndian.Uint32(hdr[1:])
	if rawLen > spMaxRaw || e.start != 0 || e.length != rawLen || kind > spKindZstd {
		return nil, p.corruptEntry(id, e.off, "bad large block header")
	}
	// The envelope's buffer is allocated before the payload is read:
	// refuse a length the payload cannot hold first.
	payload := e.size - spBlockHeader
	if kind == spKindStored && uint64(rawLen) != uint64(payload) {
		return nil, p.corruptEntry(id, e.off, "stored block of the wrong length")
	}
	if kind == spKindZstd && uint64(rawLen) > zstdMaxDecoded(int(payload)) {
		return nil, p.corruptEntry(id, e.off, fmt.Sprintf("zstd block claims %d bytes, more than its %d can decode to", rawLen, payload))
	}
	crc := crc32.Update(0, crc32c, hdr[:])
	sec := &crcReader{r: r, crc: crc}
	raw := make([]byte, rawLen)
	var err error
	if kind == spKindStored {
		_, err = io.ReadFull(sec, raw)
	} else {
		err = streamDecode(sec, raw)
	}
	if err == nil {
		_, err = io.Copy(io.Discard, sec) // the rest of the block, for the CRC
	}
	if err != nil {
		return nil, p.corruptEntry(id, e.off, err.Error())
	}
	if sec.crc != e.crc {
		return nil, p.corruptEntry(id, e.off, "CRC-32C mismatch")
	}
	return raw, nil
}

// streamDecode decodes exactly len(raw) bytes from r, refusing more.
func streamDecode(r io.Reader, raw []byte) error {
	d, err := getDecoder()
	if err != nil {
		return err
	}
	defer putDecoder(d)
	if err := d.Reset(r); err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	if _, err := io.ReadFull(d, raw); err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	var one [1]byte
	if n, err := d.Read(one[:]); n != 0 || err != io.EOF {
		return errors.New("zstd: block decodes to more bytes than its header says")
	}
	return nil
}

// crcReader computes the CRC-32C of what it reads.
type crcReader struct {
	r   io.Reader
	crc uint32
}

// Read implements io.Reader.
func (c *crcReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.crc = crc32.Update(c.crc, crc32c, b[:n])
	return n, err
}
