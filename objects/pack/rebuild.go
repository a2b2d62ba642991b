package pack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// Rebuilding an index (`tine index-pack`). The pack file holds everything
// but the envelope boundaries inside a block: its trailer is checked
// against its name, its blocks are found one after the other (a stored
// block's length is in its header, a zstd block is one or more zstd frames
// whose lengths their own headers give), each block's CRC-32C is computed
// and the block decoded. Entries of the old (damaged) index that re-hash
// correctly and tile a block are used as they are, so a flipped byte costs
// nothing; other blocks are cut into envelopes as split.go explains.
// Every envelope is re-hashed, so every entry of the new index is verified.

// RebuildIndex rebuilds the index of the pack name ("pack-<64 hex>") in
// the store's directory from the pack file (see above), writes it
// crash-safely (temporary file, fsync, rename over any damaged index,
// directory fsync) and opens the pack. It returns the number of objects
// indexed. A pack whose content does not match its name is refused: only
// an intact pack can be indexed. wanted, when not nil, reports oids known
// to be referenced; it settles where a blob ends when the pack alone
// cannot (split.go).
func (s *Store) RebuildIndex(ctx context.Context, name string, wanted func(objects.OID) bool) (int, error) {
	if err := checkPackName(name); err != nil {
		return 0, err
	}
	base := filepath.Join(s.dir, name)
	f, size, err := openPlain(base + ".pack")
	if err != nil {
		return 0, fmt.Errorf("storage pack %s: %w", base+".pack", err)
	}
	defer f.Close()
	sum, err := checkPackSum(f, size, name, s.algo)
	if err != nil {
		return 0, corruptFile(base+".pack", err)
	}
	hints := readHintIndex(base+".idx", s.algo)
	entries, err := rebuildEntries(ctx, f, size, s.algo, hints, wanted)
	if err != nil {
		return 0, corruptFile(base+".pack", err)
	}
	data := encodeSPIndex(s.algo, entries, sum[:])
	// The new index must pass every check a reader makes.
	idx, err := parseSPIndex(data, s.algo)
	if err == nil {
		p := &spPack{name: name, algo: s.algo, idx: idx, f: f, size: size, dcache: newSPDeltaCache(), store: s}
		if err = p.checkEnds(); err == nil {
			err = p.checkTiling()
		}
		if err == nil {
			err = p.checkDeltas()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("rebuilt index of %s does not check: %w", name, err)
	}
	if err := writeIndexFile(s.dir, base+".idx", data); err != nil {
		return 0, err
	}
	return len(entries), s.Reload()
}

// checkPackSum hashes the pack before its trailer and requires the trailer
// and the name to match.
func checkPackSum(f *os.File, size int64, name string, a objects.Algo) ([spSumSize]byte, error) {
	var sum [spSumSize]byte
	if size < spPackHeader+spSumSize {
		return sum, errors.New("truncated")
	}
	var hdr [spPackHeader]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return sum, err
	}
	if err := checkSPHeader(hdr[:], spPackMagic, a); err != nil {
		return sum, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, size-spSumSize)); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	var trailer [spSumSize]byte
	if _, err := f.ReadAt(trailer[:], size-spSumSize); err != nil {
		return sum, err
	}
	if trailer != sum || name != "pack-"+hex.EncodeToString(sum[:]) {
		return sum, errors.New("content does not match its trailer and name: the pack itself is damaged, no index can be rebuilt")
	}
	return sum, nil
}

// readHintIndex reads the entries of a damaged index as far as its layout
// allows, without trusting them: each is used only if the bytes it points
// at re-hash to its key. A missing or unreadable index gives none.
func readHintIndex(path string, a objects.Algo) []spEntry {
	data, err := readSPIndexFile(path)
	if err != nil || len(data) < spIndexOverhead {
		return nil
	}
	n := (len(data) - spIndexOverhead) / spEntrySize
	x := &spIndex{count: n}
	p := data[spIndexHeader+spFanout:]
	take := func(size int) []byte { s := p[:size:size]; p = p[size:]; return s }
	x.keys, x.offs = take(n*spKeySize), take(n*8)
	x.sizes, x.starts, x.lengths, x.crcs = take(n*4), take(n*4), take(n*4), take(n*4)
	out := make([]spEntry, n)
	for i := range n {
		out[i] = x.entry(i)
	}
	return out
}

// rebuildEntries walks the blocks of a pack whose trailer checked and
// returns the entries of every envelope, verified.
func rebuildEntries(ctx context.Context, f *os.File, size int64, a objects.Algo, hints []spEntry, wanted func(objects.OID) bool) ([]spEntry, error) {
	byOff := map[uint64][]spEntry{}
	known := map[spKey]bool{}
	for _, e := range hints {
		byOff[e.off] = append(byOff[e.off], e)
		known[e.key] = true
	}
	want := func(id objects.OID) bool { return known[spKeyOf(id)] || wanted != nil && wanted(id) }
	var entries []spEntry
	seen := map[spKey]bool{}
	end := size - spSumSize
	for off := int64(spPackHeader); off < end; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		blk, err := readBlock(f, off, end)
		if err != nil {
			return nil, fmt.Errorf("block at %d: %w", off, err)
		}
		e := spEntry{off: uint64(off), size: uint32(len(blk)), crc: crc32.Checksum(blk, crc32c)}
		if blk[0] == spKindDelta {
			// Indexed by the key it names; checkDeltas rebuilds and
			// re-hashes it before the index is installed.
			if e.key, e.length, err = deltaTarget(blk); err != nil {
				return nil, fmt.Errorf("block at %d: %w", off, err)
			}
			if !seen[e.key] {
				seen[e.key] = true
				entries = append(entries, e)
			}
			off += int64(len(blk))
			continue
		}
		raw, _, err := blockRaw(e, blk, nil)
		if err != nil {
			return nil, fmt.Errorf("block at %d: %w", off, err)
		}
		spans := hintSpans(e, raw, a, byOff[e.off])
		if spans == nil {
			if spans, err = splitEnvelopes(raw, a, want); err != nil {
				return nil, fmt.Errorf("block at %d: %w", off, err)
			}
		}
		for _, sp := range spans {
			if seen[sp.key] {
				continue // a writer adds an object once; keep the first
			}
			seen[sp.key] = true
			sp.off, sp.size, sp.crc = e.off, e.size, e.crc
			entries = append(entries, sp)
		}
		off += int64(len(blk))
	}
	if len(entries) == 0 {
		return nil, errors.New("no objects")
	}
	slices.SortFunc(entries, func(x, y spEntry) int { return compareKeys(x.key, y.key) })
	return entries, nil
}

// compareKeys orders index keys as the index stores them.
func compareKeys(x, y spKey) int {
	for i := range x {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return 0
}

// hintSpans returns the old index's entries for block e when they re-hash
// and tile the decoded block exactly; nil otherwise.
func hintSpans(e spEntry, raw []byte, a objects.Algo, hints []spEntry) []spEntry {
	var spans []spEntry
	for _, h := range hints {
		if h.size != e.size || h.crc != e.crc || uint64(h.start)+uint64(h.length) > uint64(len(raw)) {
			continue
		}
		t, ok := spTypeOf(h.key[32])
		if !ok {
			continue
		}
		id := objects.OID{Type: t, Algo: a}
		copy(id.Digest[:], h.key[:32])
		if _, err := objects.DecodeEnvelopeAs(id, raw[h.start:h.start+h.length]); err == nil {
			spans = append(spans, spEntry{key: h.key, start: h.start, length: h.length})
		}
	}
	slices.SortFunc(spans, func(x, y spEntry) int { return int(x.start) - int(y.start) })
	next := uint32(0)
	for _, sp := range spans {
		if sp.start != next {
			return nil
		}
		next += sp.length
	}
	if next != uint32(len(raw)) || len(spans) == 0 {
		return nil
	}
	return spans
}

// writeIndexFile writes data to path crash-safely: a temporary file in dir,
// read-only, fsynced, renamed over path, dir fsynced.
func writeIndexFile(dir, path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, objects.TempPrefix+"idx-*")
	if err != nil {
		return fmt.Errorf("write storage pack index: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err == nil {
		if err = tmp.Chmod(objects.StoredFilePerm); err == nil {
			err = tmp.Sync()
		}
	}
	if err != nil {
		return fmt.Errorf("write storage pack index: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write storage pack index: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("install storage pack index %s: %w", path, err)
	}
	if err := fsutil.SyncDir(dir); err != nil {
		return &fsutil.UnknownStateError{Path: path, Err: err}
	}
	return nil
}

// checkDeltas rebuilds and re-hashes every delta entry of a rebuilt index,
// so an index naming a delta that does not yield its object is never
// installed.
func (p *spPack) checkDeltas() error {
	for i := range p.idx.count {
		e := p.idx.entry(i)
		if !p.isDeltaBlock(e) {
			continue
		}
		if _, err := p.read(p.idx.oid(i, p.algo), i, true); err != nil {
			return err
		}
	}
	return nil
}
