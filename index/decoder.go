package index

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tinehq/tine/objects"
)

// decoder reads the catalog encoding, failing on the first violation.
type decoder struct {
	b   []byte
	off int
	err error
	// interned holds the repeated short strings (statuses, kinds, labels,
	// parameter names and values, score names) so a catalog of 50,000
	// events decodes without an allocation per string.
	interned map[string]string
	// pool is carved into the events' parent lists, so 50,000 events
	// cost a handful of allocations, not one each.
	pool []int
}

// ints returns a zeroed slice of n ints carved from the pool (capped, so
// an append to it never writes into a neighbour's).
func (d *decoder) ints(n int) []int {
	if n > len(d.pool) {
		d.pool = make([]int, max(n, 4096))
	}
	out := d.pool[:n:n]
	d.pool = d.pool[n:]
	return out
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: offset %d: %s", ErrCorrupt, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) uv() uint64 {
	if d.err != nil {
		return 0
	}
	n, k := binary.Uvarint(d.b[d.off:])
	if k <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.off += k
	return n
}

// count reads an element count and refuses one that the remaining bytes
// cannot hold at minSize bytes per element, before anything is allocated.
func (d *decoder) count(minSize int) int {
	n := d.uv()
	if d.err == nil && n > uint64((len(d.b)-d.off)/minSize) {
		d.fail("count %d exceeds the remaining bytes", n)
		return 0
	}
	return int(n)
}

// decodeList reads a counted list of entries of at least minSize bytes
// each, one call of each per entry (prev is the entry before, or nil). The
// list grows as entries decode and stops at the first error, so a count
// the bytes do not back costs what was decoded, not what it claims.
func decodeList[T any](d *decoder, minSize int, each func(v, prev *T)) []T {
	n := d.count(minSize)
	out := make([]T, 0, min(n, 256))
	for i := 0; i < n && d.err == nil; i++ {
		var prev *T
		if i > 0 {
			prev = &out[i-1]
		}
		out = append(out, *new(T))
		each(&out[i], prev)
	}
	return out
}

func (d *decoder) str() string {
	n := d.uv()
	if d.err != nil {
		return ""
	}
	if n > MaxStringBytes || n > uint64(len(d.b)-d.off) {
		d.fail("string of %d bytes", n)
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

// istr reads a string and interns it.
func (d *decoder) istr() string {
	n := d.uv()
	if d.err != nil {
		return ""
	}
	if n > MaxStringBytes || n > uint64(len(d.b)-d.off) {
		d.fail("string of %d bytes", n)
		return ""
	}
	b := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	if s, ok := d.interned[string(b)]; ok {
		return s
	}
	if d.interned == nil {
		d.interned = map[string]string{}
	}
	s := string(b)
	d.interned[s] = s
	return s
}

// oid reads an oid of the catalog's hash profile; want restricts its type
// ("" any) and zeroOK allows "no oid".
func (d *decoder) oid(a objects.Algo, want objects.Type, zeroOK bool) objects.OID {
	if d.err != nil {
		return objects.OID{}
	}
	if d.off >= len(d.b) {
		d.fail("truncated oid")
		return objects.OID{}
	}
	code := d.b[d.off]
	d.off++
	if code == 0 {
		if !zeroOK {
			d.fail("missing oid")
		}
		return objects.OID{}
	}
	if int(code) >= len(codeTypes) || len(d.b)-d.off < 32 {
		d.fail("bad oid")
		return objects.OID{}
	}
	id := objects.OID{Type: codeTypes[code], Algo: a}
	copy(id.Digest[:], d.b[d.off:])
	d.off += 32
	if want != "" && id.Type != want {
		d.fail("oid %s is not a %s", id, want)
	}
	return id
}

func (d *decoder) float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.b)-d.off < 8 {
		d.fail("truncated float")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	if math.IsNaN(f) || math.IsInf(f, 0) {
		d.fail("non-finite score")
	}
	return f
}

// flag reads a one-byte boolean (0 or 1).
func (d *decoder) flag() bool {
	if d.err != nil {
		return false
	}
	if d.off >= len(d.b) || d.b[d.off] > 1 {
		d.fail("bad flag")
		return false
	}
	d.off++
	return d.b[d.off-1] == 1
}

// flagFloat reads a presence flag and, when set, a float.
func (d *decoder) flagFloat() (bool, float64) {
	if !d.flag() {
		return false, 0
	}
	return true, d.float()
}
