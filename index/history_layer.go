package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/tinehq/tine/objects"
)

// One layer file of the history index (the format is in doc.go). A layer
// is immutable: written once under its content's name, then only read,
// merged into a bigger layer, or deleted once no chain names it.

const (
	histMagic      = "TINEHIST"
	histVersion    = 1
	histHeaderSize = 8 + 4 + 8 + 4*5
	histFanout     = 256 * 4
	histRunSize    = 32 + 32 + 4*4 + 8 + 8
	histTailSize   = 64
	histEventSize  = 32 + 4 + 4 + 8*4
	histTrailer    = 4
	// histBlockEvents is how many own-event records one block checksum
	// covers: a reader checks only the blocks it reads.
	histBlockEvents = 1024
	// maxHistLayerBytes bounds one layer file before it is read.
	maxHistLayerBytes = 1 << 34
)

// castagnoli is the CRC-32C table: hardware-accelerated, so checking a
// whole layer on every open costs microseconds per megabyte.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// histLayer is one checked layer: its bytes and its sections. Every
// accessor bounds what it reads by them, so a layer that passed
// openHistLayer never makes an accessor read out of range.
type histLayer struct {
	name                   string
	data                   []byte
	unmap                  func() error
	nruns, nsteps, nevents int
	fanout, runs, tails    []byte
	events, steps          []byte
	strs, meta             []byte
	// stepCache holds the step strings read so far, so a walk over many
	// events with few distinct steps allocates each once.
	stepCache []string
	stepSeen  []bool
	// blockSums are the own-event blocks' CRC-32Cs; checked marks the
	// blocks verified so far.
	blockSums []byte
	checked   []bool
}

// histBlocks returns the number of event blocks of n own events.
func histBlocks(n int) int { return (n + histBlockEvents - 1) / histBlockEvents }

// openHistLayer checks b as a layer of profile algo: size, the trailing
// CRC-32C of every byte but the own-event records (which carry a CRC-32C
// per block of histBlockEvents, checked when a block is first read, so
// opening a layer does not touch every page of it), magic, version, hash
// profile, section sizes against the counts, fan-out and run order.
func openHistLayer(name string, b []byte, algo objects.Algo) (*histLayer, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("history layer %s: %s: %w", name, fmt.Sprintf(format, args...), ErrHistoryCorrupt)
	}
	if len(b) < histHeaderSize+histFanout+histTrailer || int64(len(b)) > maxHistLayerBytes {
		return nil, bad("%d bytes is not a layer's size", len(b))
	}
	le := binary.LittleEndian
	body := b[:len(b)-histTrailer]
	nruns, nevents := uint64(le.Uint32(b[20:])), uint64(le.Uint32(b[28:]))
	// The event records start after the header, fan-out, runs and tails.
	evStart := uint64(histHeaderSize+histFanout) + nruns*(histRunSize+histTailSize)
	evEnd := evStart + nevents*histEventSize
	if evEnd > uint64(len(body)) {
		return nil, bad("%d events overrun %d bytes", nevents, len(body))
	}
	sum := crc32.Update(crc32.Checksum(body[:evStart], castagnoli), castagnoli, body[evEnd:])
	if sum != le.Uint32(b[len(body):]) {
		return nil, bad("checksum mismatch")
	}
	if string(b[:8]) != histMagic {
		return nil, bad("bad magic")
	}
	if v := le.Uint32(b[8:]); v != histVersion {
		return nil, bad("version %d", v)
	}
	if a := strings.TrimRight(string(b[12:20]), "\x00"); a != string(algo) {
		return nil, bad("hash %q, the repository's is %s", a, algo)
	}
	l := &histLayer{name: name, data: b}
	l.nruns, l.nsteps, l.nevents = int(le.Uint32(b[20:])), int(le.Uint32(b[24:])), int(le.Uint32(b[28:]))
	sizes := []uint64{histFanout, uint64(l.nruns) * histRunSize, uint64(l.nruns) * histTailSize,
		uint64(l.nevents) * histEventSize, uint64(l.nsteps) * 8, uint64(le.Uint32(b[32:])), uint64(le.Uint32(b[36:])),
		uint64(histBlocks(l.nevents)) * 4}
	total := uint64(histHeaderSize)
	for _, s := range sizes {
		total += s
	}
	if total != uint64(len(body)) {
		return nil, bad("sections hold %d bytes, the file %d", total, len(body))
	}
	secs := make([][]byte, len(sizes))
	pos := uint64(histHeaderSize)
	for i, s := range sizes {
		secs[i] = body[pos : pos+s : pos+s]
		pos += s
	}
	l.fanout, l.runs, l.tails, l.events, l.steps, l.strs, l.meta = secs[0], secs[1], secs[2], secs[3], secs[4], secs[5], secs[6]
	l.blockSums = secs[7]
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		f := le.Uint32(l.fanout[4*i:])
		if f < prev {
			return nil, bad("fan-out not monotone")
		}
		prev = f
	}
	if prev != uint32(l.nruns) {
		return nil, bad("fan-out ends at %d, want %d", prev, l.nruns)
	}
	for i := 1; i < l.nruns; i++ {
		if bytes.Compare(l.runs[(i-1)*histRunSize:(i-1)*histRunSize+32], l.runs[i*histRunSize:i*histRunSize+32]) >= 0 {
			return nil, bad("runs not sorted")
		}
		if bytes.Compare(l.tails[(i-1)*histTailSize:(i-1)*histTailSize+64], l.tails[i*histTailSize:i*histTailSize+64]) > 0 {
			return nil, bad("tails not sorted")
		}
	}
	return l, nil
}

// find returns the record number of run digest d, or -1.
func (l *histLayer) find(d *[32]byte) int {
	le := binary.LittleEndian
	lo, hi := 0, int(le.Uint32(l.fanout[4*int(d[0]):]))
	if d[0] > 0 {
		lo = int(le.Uint32(l.fanout[4*(int(d[0])-1):]))
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(l.runs[m*histRunSize:m*histRunSize+32], d[:]); {
		case c == 0:
			return m
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// histRec is one run record as stored.
type histRec struct {
	layer            *histLayer
	id, base         [32]byte
	prefix, own      int
	depth, metaLen   int
	eventOff, metaAt uint64
}

// rec decodes record i, checking its event and metadata ranges.
func (l *histLayer) rec(i int) (histRec, error) {
	b := l.runs[i*histRunSize : (i+1)*histRunSize]
	le := binary.LittleEndian
	r := histRec{layer: l}
	copy(r.id[:], b[:32])
	copy(r.base[:], b[32:64])
	r.prefix, r.own = int(le.Uint32(b[64:])), int(le.Uint32(b[68:]))
	r.depth, r.metaLen = int(le.Uint32(b[72:])), int(le.Uint32(b[76:]))
	r.eventOff, r.metaAt = le.Uint64(b[80:]), le.Uint64(b[88:])
	if r.eventOff > uint64(l.nevents) || uint64(r.own) > uint64(l.nevents)-r.eventOff ||
		r.metaAt > uint64(len(l.meta)) || uint64(r.metaLen) > uint64(len(l.meta))-r.metaAt ||
		r.prefix > MaxHistoryEvents || r.own > MaxHistoryEvents {
		return histRec{}, fmt.Errorf("history layer %s: run record %d out of range: %w", l.name, i, ErrHistoryCorrupt)
	}
	return r, nil
}

// event returns own event j of r, which must be below r.own, checking
// its block's CRC-32C the first time the block is read.
func (r *histRec) event(j int) ([]byte, error) {
	l := r.layer
	g := int(r.eventOff) + j
	if blk := g / histBlockEvents; l.checked == nil || !l.checked[blk] {
		if l.checked == nil {
			l.checked = make([]bool, histBlocks(l.nevents))
		}
		lo, hi := blk*histBlockEvents*histEventSize, min((blk+1)*histBlockEvents, l.nevents)*histEventSize
		if crc32.Checksum(l.events[lo:hi], castagnoli) != binary.LittleEndian.Uint32(l.blockSums[4*blk:]) {
			return nil, fmt.Errorf("history layer %s: event block %d: checksum mismatch: %w", l.name, blk, ErrHistoryCorrupt)
		}
		l.checked[blk] = true
	}
	k := g * histEventSize
	return l.events[k : k+histEventSize], nil
}

// step returns step string number n of the layer.
func (l *histLayer) step(n uint32) (string, error) {
	if int(n) >= l.nsteps {
		return "", fmt.Errorf("history layer %s: step %d of %d: %w", l.name, n, l.nsteps, ErrHistoryCorrupt)
	}
	if l.stepCache == nil {
		l.stepCache, l.stepSeen = make([]string, l.nsteps), make([]bool, l.nsteps)
	}
	if l.stepSeen[n] {
		return l.stepCache[n], nil
	}
	le := binary.LittleEndian
	off, ln := le.Uint32(l.steps[8*n:]), le.Uint32(l.steps[8*n+4:])
	if uint64(off)+uint64(ln) > uint64(len(l.strs)) {
		return "", fmt.Errorf("history layer %s: step %d out of range: %w", l.name, n, ErrHistoryCorrupt)
	}
	l.stepCache[n], l.stepSeen[n] = string(l.strs[off:off+ln]), true
	return l.stepCache[n], nil
}

// tailRuns returns the runs of the layer whose last event is digest d.
func (l *histLayer) tailRuns(d []byte) [][32]byte {
	lo, hi := 0, l.nruns
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(l.tails[m*histTailSize:m*histTailSize+32], d) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var out [][32]byte
	for ; lo < l.nruns && bytes.Equal(l.tails[lo*histTailSize:lo*histTailSize+32], d); lo++ {
		var r [32]byte
		copy(r[:], l.tails[lo*histTailSize+32:(lo+1)*histTailSize])
		out = append(out, r)
	}
	return out
}

// leUint32 reads a little-endian uint32.
func leUint32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// crc32Castagnoli is the layers' and chain's checksum.
func crc32Castagnoli(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
