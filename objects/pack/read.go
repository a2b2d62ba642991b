package pack

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/tinehq/tine/objects"
)

// spPack is one open storage pack: its index and the pack file, read with
// ReadAt so concurrent readers need no lock.
type spPack struct {
	dir  string
	name string // "pack-<hex>"
	algo objects.Algo
	idx  *spIndex
	f    *os.File
	size int64
	// data is the index file's bytes (mapped, for a pack a Store opened
	// lazily), unmap releases a mapping.
	data  []byte
	unmap func() error
	// trust is the index's full verification, run once (index_trust.go).
	trust spTrust
	// cache is the owning store's decoded-block cache, nil for a pack
	// opened alone (Verify, Walk of a pack the store does not hold).
	cache *spBlockCache
	// dcache holds envelopes rebuilt from delta blocks (delta_read.go).
	dcache *spDeltaCache
	// store finds the bases of deltas an append based on other packs
	// (delta_read.go); nil for a pack read without its store.
	store *Store
	// holds counts the walks using the pack (Store.Walk), which keep a
	// retired pack open (store.go).
	holds atomic.Int32
}

// spStreamRead is the block size above which a block is streamed from the
// file instead of read whole.
const spStreamRead = 2 * LargeObject

// openSPPack opens the pack name ("pack-<hex>") in dir and validates its
// index in full: checksum, order, every entry's bounds.
func openSPPack(dir, name string, a objects.Algo) (*spPack, error) {
	base := filepath.Join(dir, name)
	data, err := readSPIndexFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	p, err := openSPPackWith(dir, name, a, data, nil)
	if err != nil {
		return nil, err
	}
	if err := p.verifyIndex(); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// openSPPackLazy opens the pack name in dir with its index mapped, not
// read, and checks only what every lookup relies on (header, length,
// fan-out, the pack it binds); the rest of the index is verified when
// something trusts more than a found entry (index_trust.go).
func openSPPackLazy(dir, name string, a objects.Algo) (*spPack, error) {
	data, unmap, err := mapSPIndexFile(filepath.Join(dir, name) + ".idx")
	if err != nil {
		return nil, err
	}
	p, err := openSPPackWith(dir, name, a, data, unmap)
	if err != nil {
		unmap()
		return nil, err
	}
	return p, nil
}

// openSPPackWith opens the pack file of name and checks it against the
// index bytes data with the shallow index checks.
func openSPPackWith(dir, name string, a objects.Algo, data []byte, unmap func() error) (*spPack, error) {
	base := filepath.Join(dir, name)
	idx, err := parseSPIndexShallow(data, a)
	if err != nil {
		return nil, corruptFile(base+".idx", err)
	}
	if name != "pack-"+hex.EncodeToString(idx.packSum[:]) {
		return nil, corruptFile(base+".idx", errors.New("names another pack"))
	}
	f, size, err := openPlain(base + ".pack")
	if err != nil {
		return nil, fmt.Errorf("storage pack %s: %w", base+".pack", err)
	}
	p := &spPack{dir: dir, name: name, algo: a, idx: idx, f: f, size: size, data: data, unmap: unmap, dcache: newSPDeltaCache()}
	if err := p.checkEnds(); err != nil {
		f.Close()
		return nil, corruptFile(base+".pack", err)
	}
	return p, nil
}

// close closes the pack file and unmaps its index.
func (p *spPack) close() error {
	err := p.f.Close()
	if p.unmap != nil {
		err = errors.Join(err, p.unmap())
		p.unmap = nil
	}
	return err
}

// checkEnds validates the pack's header and trailer against its index
// (each entry's block bounds are checkPack's, index_trust.go).
func (p *spPack) checkEnds() error {
	if p.size < spPackHeader+spSumSize {
		return errors.New("truncated")
	}
	var hdr [spPackHeader]byte
	var sum [spSumSize]byte
	if _, err := p.f.ReadAt(hdr[:], 0); err != nil {
		return err
	}
	if _, err := p.f.ReadAt(sum[:], p.size-spSumSize); err != nil {
		return err
	}
	if err := checkSPHeader(hdr[:], spPackMagic, p.algo); err != nil {
		return err
	}
	if sum != p.idx.packSum {
		return errors.New("trailer does not match its index")
	}
	return nil
}

// readSPIndexFile reads an index file after the path confinement checks,
// refusing one too large to be an index before reading it.
func readSPIndexFile(path string) ([]byte, error) {
	f, size, err := openPlain(path)
	if err != nil {
		return nil, fmt.Errorf("storage pack index %s: %w", path, err)
	}
	defer f.Close()
	if size > spIndexOverhead+int64(MaxObjects)*spEntrySize {
		return nil, corruptFile(path, fmt.Errorf("%d bytes is too large", size))
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("storage pack index %s: %w", path, err)
	}
	return data, nil
}

// openPlain opens a regular file that is not a symlink or hard link
// (SPEC §2.1 path confinement) and returns it with its size. Pack files are
// named by their content, so a concurrent writer of the same pack may
// rename an identical file over this one between the check and the open;
// that is retried a few times.
func openPlain(path string) (*os.File, int64, error) {
	for try := 1; ; try++ {
		f, size, swapped, err := openPlainOnce(path)
		if !swapped || try == 4 {
			return f, size, err
		}
	}
}

// openPlainOnce is one attempt of openPlain.
func openPlainOnce(path string) (f *os.File, size int64, swapped bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, 0, false, err
	}
	if err := objects.CheckPlainFile(fi); err != nil {
		return nil, 0, false, err
	}
	if f, err = os.Open(path); err != nil {
		return nil, 0, false, err
	}
	fi2, err := f.Stat()
	if err == nil && !os.SameFile(fi, fi2) {
		swapped = true
		err = fmt.Errorf("changed while being opened: %w", objects.ErrUnsafeFile)
	}
	if err != nil {
		f.Close()
		return nil, 0, swapped, err
	}
	return f, fi2.Size(), false, nil
}

// corruptFile wraps a structural error of a pack or index file.
func corruptFile(path string, err error) error {
	return fmt.Errorf("%s: %w: %w", path, ErrCorrupt, err)
}

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
