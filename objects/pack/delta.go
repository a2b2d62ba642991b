package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Delta blocks. A run object lists every event of its run, so a run
// appended one event at a time is a sequence of snapshots each a little
// longer than the one before: stored whole, n appends cost O(n²) bytes
// (736 KiB per snapshot at 10,000 events). Inside a storage pack a run may
// instead be stored as a delta against another run of the same pack
// (git's OBJ_REF_DELTA idea). A Writer's deltas are based on runs of the
// same pack, so a pack gc writes stands alone; a run an append writes
// (Store.WriteAppendPack) is based on its predecessor's chain wherever
// that is packed, as git's thin packs are, and gc's rewrites make the
// result self-contained again:
//
//	header   5 bytes   kind uint8 (2), raw length uint32: the length of
//	                   the envelope the delta rebuilds
//	target   33 bytes  the key (digest, type code) of the object rebuilt
//	base     33 bytes  the key of the base: an entry of the same pack, or
//	                   for a delta an append wrote, of another pack
//	position uint32    the object's position in its chain of appends (a
//	                   whole object is position 0); writers choose bases
//	                   with it (write_append.go), readers ignore it
//	length   uint32    the byte length of the instructions that follow
//	ops      ...       instructions, applied in order to build the target:
//	                   0x00 offset uvarint, length uvarint: copy that range
//	                   of the base's envelope; 0x01 length uvarint, then
//	                   that many bytes: insert them
//
// The block is the entry's own (start 0, length the raw length); its CRC
// covers the whole block as for any block. A reader rebuilds the base
// (itself possibly a delta: at most MaxDeltaChain links are followed),
// applies the instructions, requires exactly the raw length, and then
// re-hashes the result like any other object, so a damaged delta or base
// is an error naming the object, never a wrong object. The target key
// lets index-pack index a delta without rebuilding it first; the entry is
// verified by a read before the rebuilt index is installed.

const (
	// spKindDelta is the block kind of a delta (see above).
	spKindDelta = 2
	// spDeltaHeader is the fixed part of a delta block after the block
	// header: target key, base key, instruction length.
	spDeltaHeader = 2*spKeySize + 8
	// MaxDeltaChain bounds the deltas a read follows to rebuild one object;
	// a longer chain (or a cycle) is refused as corrupt.
	MaxDeltaChain = 1024
	// DefaultDeltaDepth is the longest chain a Writer builds: a run whose
	// chosen base is already this deep is stored whole, so a read applies at
	// most this many deltas (see the measurements in doc.go).
	DefaultDeltaDepth = 100
	// deltaOpCopy and deltaOpInsert are the instruction codes.
	deltaOpCopy   = 0
	deltaOpInsert = 1
)

// errDeltaBase is the damage of a delta whose base is not in its pack.
var errDeltaBase = errors.New("delta base is not in any storage pack")

// encodeDelta returns the instructions that build target from base. The
// common prefix and suffix are copied; appending an event to a run changes
// only its event list's end and its tips, so they cover nearly all of it.
// A longer middle (a fork's run: a new created_at before the same event
// list) is matched against base in blocks of deltaBlock bytes, so the
// shared event list is still copied, not inserted.
func encodeDelta(base, target []byte) []byte {
	return encodeDeltaIndexed(base, target, nil)
}

// encodeDeltaIndexed is encodeDelta for a base tried against several
// targets (a writer's recent runs): where a target's middle is most of
// base, base's whole block index is built once into *idx and reused by
// later calls. With idx nil, or a middle under a quarter of base, only
// base's own middle is indexed, for this call alone.
func encodeDeltaIndexed(base, target []byte, idx *deltaIndex) []byte {
	p := commonPrefix(base, target)
	s := commonSuffix(base[p:], target[p:])
	var ops []byte
	if p > 0 {
		ops = appendCopy(ops, 0, p)
	}
	ops = appendMiddle(ops, base, len(base)-s, target[:len(target)-s], p, idx)
	if s > 0 {
		ops = appendCopy(ops, len(base)-s, s)
	}
	return ops
}

// deltaBlock is the match unit of appendMiddle.
const deltaBlock = 32

// deltaIndex maps the hash of each indexed deltaBlock-long block of a
// base to the first offset holding it. Keys are hashes, not the blocks,
// so that building it is cheap; a lookup compares the bytes, and a block
// whose hash collides with an earlier one is simply not indexed.
type deltaIndex map[uint64]int32

// blockHash hashes the deltaBlock bytes at b (multiply-xor of its words).
func blockHash(b []byte) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := binary.LittleEndian.Uint64(b) * m
	h = (h ^ binary.LittleEndian.Uint64(b[8:])) * m
	h = (h ^ binary.LittleEndian.Uint64(b[16:])) * m
	h = (h ^ binary.LittleEndian.Uint64(b[24:])) * m
	return h ^ h>>29
}

// newDeltaIndex indexes the blocks of base[from:end], from from on.
func newDeltaIndex(base []byte, from, end int) deltaIndex {
	index := make(deltaIndex, max(end-from, 0)/deltaBlock)
	for o := from; o+deltaBlock <= end; o += deltaBlock {
		h := blockHash(base[o:])
		if _, dup := index[h]; !dup {
			index[h] = int32(o)
		}
	}
	return index
}

// appendMiddle appends instructions building target[from:]: runs of base
// found through a block index are copied (extended both ways), the rest
// inserted. Short middles are inserted whole. The index covers base's own
// middle, base[from:baseEnd], when idx is nil or that middle is under a
// quarter of base: what target shares with base's prefix and suffix is
// copied already, so for an append onto a long run (whose middle in base
// is the old list's tail, tips and status) the index costs the change, not
// the run. Otherwise it is base's whole index, built into *idx on first
// need and kept for the next target.
func appendMiddle(ops, base []byte, baseEnd int, target []byte, from int, idx *deltaIndex) []byte {
	if len(target)-from < 4*deltaBlock || len(base) < deltaBlock || len(base) > math.MaxInt32 {
		return appendInsert(ops, target[from:])
	}
	var index deltaIndex
	switch {
	case idx == nil || 4*(baseEnd-from) < len(base):
		index = newDeltaIndex(base, from, baseEnd)
	case *idx == nil:
		*idx = newDeltaIndex(base, 0, len(base))
		index = *idx
	default:
		index = *idx
	}
	lit := from
	for i := from; i+deltaBlock <= len(target); {
		o32, ok := index[blockHash(target[i:])]
		o := int(o32)
		if !ok || !bytes.Equal(base[o:o+deltaBlock], target[i:i+deltaBlock]) {
			i++
			continue
		}
		start, bstart := i, o
		for start > lit && bstart > 0 && target[start-1] == base[bstart-1] {
			start, bstart = start-1, bstart-1
		}
		k := deltaBlock + commonPrefix(base[o+deltaBlock:], target[i+deltaBlock:])
		end := i + k
		ops = appendInsert(ops, target[lit:start])
		ops = appendCopy(ops, bstart, end-start)
		lit, i = end, end
	}
	return appendInsert(ops, target[lit:])
}

// commonPrefix returns the length of the longest common prefix of a and
// b, comparing a word at a time.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.BigEndian.Uint64(a[len(a)-i-8:]) ^ binary.BigEndian.Uint64(b[len(b)-i-8:])
		if x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// appendInsert appends an insert instruction for lit, if not empty.
func appendInsert(ops, lit []byte) []byte {
	if len(lit) == 0 {
		return ops
	}
	ops = append(ops, deltaOpInsert)
	ops = binary.AppendUvarint(ops, uint64(len(lit)))
	return append(ops, lit...)
}

// appendCopy appends a copy instruction.
func appendCopy(ops []byte, off, n int) []byte {
	ops = append(ops, deltaOpCopy)
	ops = binary.AppendUvarint(ops, uint64(off))
	return binary.AppendUvarint(ops, uint64(n))
}

// applyDelta builds the target of ops from base; it must come to exactly
// rawLen bytes. Every offset and length is checked before use, so hostile
// instructions cost at most rawLen bytes and never panic.
func applyDelta(base, ops []byte, rawLen uint32) ([]byte, error) {
	// The output is allocated first, so a claim the instructions cannot
	// build is refused before: a copy takes at least 3 bytes and yields at
	// most the base, an insert of n bytes takes more than n.
	if uint64(rawLen) > uint64(len(ops)/3)*uint64(len(base))+uint64(len(ops)) {
		return nil, fmt.Errorf("delta: claims %d bytes, more than its %d bytes of instructions can build", rawLen, len(ops))
	}
	out := make([]byte, 0, rawLen)
	for len(ops) > 0 {
		op := ops[0]
		ops = ops[1:]
		switch op {
		case deltaOpCopy:
			off, k := binary.Uvarint(ops)
			if k <= 0 {
				return nil, errors.New("delta: bad copy offset")
			}
			ops = ops[k:]
			n, k := binary.Uvarint(ops)
			if k <= 0 {
				return nil, errors.New("delta: bad copy length")
			}
			ops = ops[k:]
			if off > uint64(len(base)) || n > uint64(len(base))-off || n > uint64(rawLen)-uint64(len(out)) {
				return nil, errors.New("delta: copy outside its base or target")
			}
			out = append(out, base[off:off+n]...)
		case deltaOpInsert:
			n, k := binary.Uvarint(ops)
			if k <= 0 || n > uint64(len(ops)-k) || n > uint64(rawLen)-uint64(len(out)) {
				return nil, errors.New("delta: bad insert length")
			}
			out = append(out, ops[k:k+int(n)]...)
			ops = ops[k+int(n):]
		default:
			return nil, fmt.Errorf("delta: unknown instruction %d", op)
		}
	}
	if uint32(len(out)) != rawLen {
		return nil, fmt.Errorf("delta: built %d bytes, want %d", len(out), rawLen)
	}
	return out, nil
}

// spDelta is a parsed delta block.
type spDelta struct {
	rawLen       uint32
	target, base spKey
	pos          uint32
	ops          []byte
}

// parseDeltaBlock parses a whole delta block (header included) whose CRC
// the caller checked.
func parseDeltaBlock(blk []byte) (spDelta, error) {
	var d spDelta
	if len(blk) < spBlockHeader+spDeltaHeader || blk[0] != spKindDelta {
		return d, errors.New("truncated delta block")
	}
	d.rawLen = binary.BigEndian.Uint32(blk[1:spBlockHeader])
	if d.rawLen > spMaxRaw {
		return d, errors.New("envelope outside its block")
	}
	b := blk[spBlockHeader:]
	copy(d.target[:], b[:spKeySize])
	copy(d.base[:], b[spKeySize:2*spKeySize])
	d.pos = binary.BigEndian.Uint32(b[2*spKeySize:])
	n := binary.BigEndian.Uint32(b[2*spKeySize+4:])
	d.ops = b[spDeltaHeader:]
	if uint64(n) != uint64(len(d.ops)) {
		return d, errors.New("delta block of the wrong length")
	}
	if bytes.Equal(d.target[:], d.base[:]) {
		return d, errors.New("delta names itself as its base")
	}
	return d, nil
}

// appendDeltaBlock appends the whole delta block of target against base.
func appendDeltaBlock(dst []byte, rawLen uint32, target, base spKey, pos uint32, ops []byte) []byte {
	dst = append(dst, spKindDelta)
	dst = binary.BigEndian.AppendUint32(dst, rawLen)
	dst = append(dst, target[:]...)
	dst = append(dst, base[:]...)
	dst = binary.BigEndian.AppendUint32(dst, pos)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(ops)))
	return append(dst, ops...)
}
