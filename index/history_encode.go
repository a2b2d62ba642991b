package index

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
)

// histRunData is a run as a layer writer holds it: the record's fields,
// its metadata and its own events with their cumulative sums.
type histRunData struct {
	id, base      [32]byte
	tail          [32]byte // the run's last event (zero for none)
	prefix, depth int
	status        string
	tips          [][32]byte
	events        []histEventData
}

// histEventData is one own event: its digest, step, and the run's sums
// over every event up to and including it.
type histEventData struct {
	id             [32]byte
	step           string
	cost, dur, tok float64
	score          float64
	hasScore       bool
}

// encodeHistLayer lays runs out as one layer file (doc.go has the
// format). runs may come in any order; each id must be unique.
func encodeHistLayer(algo string, runs []histRunData) []byte {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b histRunData) int { return bytes.Compare(a.id[:], b.id[:]) })
	le := binary.LittleEndian
	steps := map[string]uint32{}
	var stepTab, strs, meta []byte
	nevents := 0
	for i := range runs {
		nevents += len(runs[i].events)
	}
	recs := make([]byte, 0, len(runs)*histRunSize)
	tails := make([][64]byte, 0, len(runs))
	evs := make([]byte, 0, nevents*histEventSize)
	var fan [256]uint32
	off := 0
	for _, r := range runs {
		fan[r.id[0]]++
		m := len(meta)
		meta = binary.AppendUvarint(meta, uint64(len(r.status)))
		meta = append(meta, r.status...)
		meta = binary.AppendUvarint(meta, uint64(len(r.tips)))
		for _, t := range r.tips {
			meta = append(meta, t[:]...)
		}
		recs = append(recs, r.id[:]...)
		recs = append(recs, r.base[:]...)
		recs = le.AppendUint32(recs, uint32(r.prefix))
		recs = le.AppendUint32(recs, uint32(len(r.events)))
		recs = le.AppendUint32(recs, uint32(r.depth))
		recs = le.AppendUint32(recs, uint32(len(meta)-m))
		recs = le.AppendUint64(recs, uint64(off))
		recs = le.AppendUint64(recs, uint64(m))
		var t [64]byte
		copy(t[:32], r.tail[:])
		copy(t[32:], r.id[:])
		tails = append(tails, t)
		for _, e := range r.events {
			s, ok := steps[e.step]
			if !ok {
				s = uint32(len(steps))
				steps[e.step] = s
				stepTab = le.AppendUint32(stepTab, uint32(len(strs)))
				stepTab = le.AppendUint32(stepTab, uint32(len(e.step)))
				strs = append(strs, e.step...)
			}
			evs = append(evs, e.id[:]...)
			evs = le.AppendUint32(evs, s)
			var flags uint32
			if e.hasScore {
				flags = 1
			}
			evs = le.AppendUint32(evs, flags)
			for _, f := range []float64{e.cost, e.dur, e.tok, e.score} {
				evs = le.AppendUint64(evs, math.Float64bits(f))
			}
		}
		off += len(r.events)
	}
	// A run with no events has the zero tail; it sorts first.
	slices.SortFunc(tails, func(a, b [64]byte) int { return bytes.Compare(a[:], b[:]) })
	b := make([]byte, 0, histHeaderSize+histFanout+len(recs)+len(tails)*64+len(evs)+len(stepTab)+len(strs)+len(meta)+histTrailer)
	b = append(b, histMagic...)
	b = le.AppendUint32(b, histVersion)
	var a [8]byte
	copy(a[:], algo)
	b = append(b, a[:]...)
	for _, n := range []int{len(runs), len(steps), nevents, len(strs), len(meta)} {
		b = le.AppendUint32(b, uint32(n))
	}
	sum := uint32(0)
	for _, f := range fan {
		sum += f
		b = le.AppendUint32(b, sum)
	}
	b = append(b, recs...)
	for _, t := range tails {
		b = append(b, t[:]...)
	}
	b = append(b, evs...)
	b = append(b, stepTab...)
	b = append(b, strs...)
	b = append(b, meta...)
	for i := 0; i < len(evs); i += histBlockEvents * histEventSize {
		b = le.AppendUint32(b, crc32.Checksum(evs[i:min(i+histBlockEvents*histEventSize, len(evs))], castagnoli))
	}
	// The trailer covers every byte but the event records, which their
	// block sums cover.
	evStart := histHeaderSize + histFanout + len(recs) + len(tails)*histTailSize
	crc := crc32.Update(crc32.Checksum(b[:evStart], castagnoli), castagnoli, b[evStart+len(evs):])
	return le.AppendUint32(b, crc)
}
