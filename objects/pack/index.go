package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// spIndex is a parsed, validated storage pack index. Its tables are slices
// of the index file's bytes; nothing is copied per entry.
type spIndex struct {
	count   int
	fanout  []byte // 256 × uint32
	keys    []byte // count × spKeySize
	offs    []byte // count × uint64
	sizes   []byte // count × uint32
	starts  []byte
	lengths []byte
	crcs    []byte
	packSum [spSumSize]byte
}

// encodeSPIndex builds the index of a pack from its entries, which must be
// sorted by key and distinct.
func encodeSPIndex(a objects.Algo, entries []spEntry, packSum []byte) []byte {
	n := len(entries)
	out := make([]byte, 0, spIndexOverhead+n*spEntrySize)
	out = appendSPHeader(out, spIndexMagic, a)
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	var fan [256]uint32
	for _, e := range entries {
		fan[e.key[0]]++
	}
	var run uint32
	for i := range fan {
		run += fan[i]
		out = binary.BigEndian.AppendUint32(out, run)
	}
	for _, e := range entries {
		out = append(out, e.key[:]...)
	}
	for _, e := range entries {
		out = binary.BigEndian.AppendUint64(out, e.off)
	}
	for _, field := range []func(spEntry) uint32{
		func(e spEntry) uint32 { return e.size },
		func(e spEntry) uint32 { return e.start },
		func(e spEntry) uint32 { return e.length },
		func(e spEntry) uint32 { return e.crc },
	} {
		for _, e := range entries {
			out = binary.BigEndian.AppendUint32(out, field(e))
		}
	}
	out = append(out, packSum...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

// parseSPIndex validates an index file of hash profile a and returns its
// tables. Every structural rule is checked here, so lookups never index out
// of range; only the offsets' bounds wait for the pack's size (checkPack).
// The error does not name the file; the caller does.
func parseSPIndex(data []byte, a objects.Algo) (*spIndex, error) {
	x, err := parseSPIndexShallow(data, a)
	if err != nil {
		return nil, err
	}
	if err := x.checkSum(data); err != nil {
		return nil, err
	}
	if err := x.checkTables(); err != nil {
		return nil, err
	}
	return x, nil
}

// parseSPIndexShallow checks what costs nothing per entry: the length, the
// header, the count against the length and the fan-out table, which bounds
// every binary search to its bucket. Those checks make every table access
// of a lookup stay inside data; whether the keys are sorted and the
// entries sound is left to checkSum and checkTables (index_trust.go).
func parseSPIndexShallow(data []byte, a objects.Algo) (*spIndex, error) {
	if len(data) < spIndexOverhead {
		return nil, errors.New("truncated")
	}
	if err := checkSPHeader(data, spIndexMagic, a); err != nil {
		return nil, err
	}
	count := binary.BigEndian.Uint32(data[16:20])
	if count > MaxObjects {
		return nil, fmt.Errorf("%d entries, the limit is %d", count, MaxObjects)
	}
	n := int(count)
	if len(data) != spIndexOverhead+n*spEntrySize {
		return nil, fmt.Errorf("%d bytes for %d entries", len(data), n)
	}
	x := &spIndex{count: n}
	p := data[spIndexHeader:]
	take := func(size int) []byte { s := p[:size:size]; p = p[size:]; return s }
	x.fanout = take(spFanout)
	x.keys = take(n * spKeySize)
	x.offs = take(n * 8)
	x.sizes = take(n * 4)
	x.starts = take(n * 4)
	x.lengths = take(n * 4)
	x.crcs = take(n * 4)
	copy(x.packSum[:], take(spSumSize))
	if err := x.checkFanout(); err != nil {
		return nil, err
	}
	return x, nil
}

// checkSum verifies the index's SHA-256 trailer over data, the bytes x
// was parsed from.
func (x *spIndex) checkSum(data []byte) error {
	body, sum := data[:len(data)-spSumSize], data[len(data)-spSumSize:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return errors.New("trailer checksum mismatch")
	}
	return nil
}

// checkFanout validates that the fan-out never decreases and ends at the
// entry count.
func (x *spIndex) checkFanout() error {
	prev := uint32(0)
	for b := range 256 {
		f := x.fan(b)
		if f < prev {
			return fmt.Errorf("fan-out decreases at %d", b)
		}
		prev = f
	}
	if int(prev) != x.count {
		return fmt.Errorf("fan-out ends at %d, count is %d", prev, x.count)
	}
	return nil
}

// checkTables validates key order and per-entry fields (the fan-out was
// checked by parseSPIndexShallow).
func (x *spIndex) checkTables() error {
	for i := range x.count {
		k := x.key(i)
		if _, ok := spTypeOf(k[32]); !ok {
			return fmt.Errorf("entry %d: unknown type code %d", i, k[32])
		}
		if i > 0 && bytes.Compare(x.key(i-1), k) >= 0 {
			return fmt.Errorf("entry %d: keys not strictly increasing", i)
		}
		lo, hi := x.bucket(k[0])
		if i < lo || i >= hi {
			return fmt.Errorf("entry %d: outside its fan-out bucket", i)
		}
		size, start, length := x.u32(x.sizes, i), x.u32(x.starts, i), x.u32(x.lengths, i)
		if size <= spBlockHeader || length == 0 || uint64(start)+uint64(length) > spMaxRaw {
			return fmt.Errorf("entry %d: bad block or envelope bounds", i)
		}
	}
	return nil
}

// checkPack verifies that every block lies between the pack's header and
// trailer.
func (x *spIndex) checkPack(packSize int64) error {
	if packSize < spPackHeader+spSumSize {
		return errors.New("pack shorter than its header and trailer")
	}
	end := uint64(packSize) - spSumSize
	for i := range x.count {
		off, size := x.off(i), uint64(x.u32(x.sizes, i))
		if off < spPackHeader || off > end || size > end-off {
			return fmt.Errorf("entry %d: block [%d,+%d) outside the pack", i, off, size)
		}
	}
	return nil
}

// fan returns fan-out slot b.
func (x *spIndex) fan(b int) uint32 { return binary.BigEndian.Uint32(x.fanout[4*b:]) }

// bucket returns the entry range whose digests start with byte b.
func (x *spIndex) bucket(b byte) (lo, hi int) {
	if b > 0 {
		lo = int(x.fan(int(b) - 1))
	}
	return lo, int(x.fan(int(b)))
}

// key returns the key of entry i.
func (x *spIndex) key(i int) []byte { return x.keys[i*spKeySize : (i+1)*spKeySize] }

// off returns the block offset of entry i.
func (x *spIndex) off(i int) uint64 { return binary.BigEndian.Uint64(x.offs[8*i:]) }

// u32 returns entry i of a uint32 table.
func (x *spIndex) u32(table []byte, i int) uint32 { return binary.BigEndian.Uint32(table[4*i:]) }

// find returns the entry of key k.
//
// Digests are uniform within a fan-out bucket, so the search starts where
// k's next bytes place it and widens by doubling until it brackets k,
// then halves: a few neighbouring keys are read where a binary search
// over the bucket reads one cache line a step (a random read from a
// 100,000-object pack spent 5% of its time in the search). Every index
// stays inside the bucket, whatever an unverified index holds.
func (x *spIndex) find(k spKey) (int, bool) {
	lo, hi := x.bucket(k[0])
	if hi-lo > 8 {
		g := lo + int(uint64(hi-lo)*uint64(binary.BigEndian.Uint32(k[1:5]))>>32)
		switch c := x.compareKey(g, &k); {
		case c == 0:
			return g, true
		case c < 0:
			step := 1
			for lo = g + 1; g+step < hi; step *= 2 {
				if x.compareKey(g+step, &k) >= 0 {
					hi = g + step + 1
					break
				}
				lo = g + step + 1
			}
		default:
			step := 1
			for hi = g; g-step >= lo; step *= 2 {
				if x.compareKey(g-step, &k) <= 0 {
					lo = g - step
					break
				}
				hi = g - step
			}
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := x.compareKey(m, &k); {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

// compareKey compares the key of entry i with k: by their first eight
// bytes as a number (which nearly always decides), then the rest.
func (x *spIndex) compareKey(i int, k *spKey) int {
	a := x.keys[i*spKeySize : (i+1)*spKeySize]
	if u, v := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(k[:8]); u != v {
		if u < v {
			return -1
		}
		return 1
	}
	return bytes.Compare(a[8:], k[8:])
}

// entry returns entry i.
func (x *spIndex) entry(i int) spEntry {
	e := spEntry{off: x.off(i), size: x.u32(x.sizes, i), start: x.u32(x.starts, i),
		length: x.u32(x.lengths, i), crc: x.u32(x.crcs, i)}
	copy(e.key[:], x.key(i))
	return e
}

// oid returns the oid of entry i in profile a.
func (x *spIndex) oid(i int, a objects.Algo) objects.OID {
	k := x.key(i)
	t, _ := spTypeOf(k[32])
	id := objects.OID{Type: t, Algo: a}
	copy(id.Digest[:], k[:32])
	return id
}
