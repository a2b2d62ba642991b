package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// The search index file, objects/catalog/search (format version 1):
//
//	magic     "TINESRCH"
//	version   uv = 1
//	algo      string (the repository's hash)
//	prefix    uv: MaxBlobPrefix it was built with
//	events    uv count, then per event: its oid — the indexed events,
//	          sorted by oid
//	terms     uv count, then per term, sorted bytewise: term (string),
//	          uv byte length of its postings, then the postings: uv count,
//	          then per posting uv (event position - previous position;
//	          the first is the position itself) and one field byte
//	          (FieldInput | FieldOutput | FieldMeta)
//	checksum  32 bytes: SHA-256 of every byte before it
//
// Like the catalog it is derived, rebuildable and never authoritative; a
// file that fails any check is rebuilt, never trusted.
const (
	searchMagic   = "TINESRCH"
	searchVersion = 1
	// SearchFile is the search index's name in Dir.
	SearchFile = "search"
)

// posting is one event a term occurs in.
type posting struct {
	event  int
	fields byte
}

// searchData is a decoded search file. Postings stay encoded until a
// query asks for a term (terms hold offsets into raw).
type searchData struct {
	algo   objects.Algo
	prefix int
	events []objects.OID
	raw    []byte
	terms  []termRef
}

// termRef locates one term (raw[name:name+nameLen]) and its posting
// block (raw[off:off+size]); names are not copied out of the file, so a
// load costs no allocation per term.
type termRef struct {
	name, nameLen int
	off, size     int
}

// term returns the text of term i (a copy only where the caller keeps it).
func (s *searchData) term(i int) string {
	t := s.terms[i]
	return string(s.raw[t.name : t.name+t.nameLen])
}

// encodeSearch returns the file bytes for events (sorted) and terms.
func encodeSearch(algo objects.Algo, events []objects.OID, terms map[string][]posting) []byte {
	e := &encoder{b: make([]byte, 0, 1<<16)}
	e.b = append(e.b, searchMagic...)
	e.uv(searchVersion)
	e.str(string(algo))
	e.uv(MaxBlobPrefix)
	e.uv(uint64(len(events)))
	for _, id := range events {
		e.oid(id)
	}
	names := make([]string, 0, len(terms))
	for t := range terms {
		names = append(names, t)
	}
	slices.Sort(names)
	e.uv(uint64(len(names)))
	var block []byte
	for _, t := range names {
		ps := terms[t]
		slices.SortFunc(ps, func(a, b posting) int { return a.event - b.event })
		block = binary.AppendUvarint(block[:0], uint64(len(ps)))
		prev := 0
		for _, p := range ps {
			block = binary.AppendUvarint(block, uint64(p.event-prev))
			block = append(block, p.fields)
			prev = p.event
		}
		e.str(t)
		e.uv(uint64(len(block)))
		e.b = append(e.b, block...)
	}
	h := objects.SHA256.New()
	h.Write(e.b)
	return h.Sum(e.b)
}

// decodeSearch checks and parses a search file, leaving postings encoded.
func decodeSearch(file []byte) (*searchData, error) {
	if len(file) < len(searchMagic)+checksumSize || !bytes.HasPrefix(file, []byte(searchMagic)) {
		return nil, fmt.Errorf("%w: not a search index (truncated or bad magic)", ErrCorrupt)
	}
	n := len(file) - checksumSize
	h := objects.SHA256.New()
	h.Write(file[:n])
	if !bytes.Equal(h.Sum(nil), file[n:]) {
		return nil, fmt.Errorf("%w: search index checksum mismatch", ErrCorrupt)
	}
	d := &decoder{b: file[:n], off: len(searchMagic)}
	if v := d.uv(); d.err == nil && v != searchVersion {
		return nil, fmt.Errorf("%w: search index version %d, want %d", ErrVersion, v, searchVersion)
	}
	out := &searchData{algo: objects.Algo(d.str()), raw: file[:n]}
	if d.err == nil && !out.algo.Valid() {
		d.fail("unknown hash %q", out.algo)
	}
	out.prefix = int(d.uv())
	out.events = make([]objects.OID, d.count(33))
	for i := range out.events {
		out.events[i] = d.oid(out.algo, objects.TypeEvent, false)
		if d.err == nil && i > 0 && compareOID(out.events[i-1], out.events[i]) >= 0 {
			d.fail("search events out of order")
		}
	}
	out.terms = make([]termRef, d.count(3))
	for i := range out.terms {
		t := &out.terms[i]
		n := d.uv()
		if d.err == nil && (n == 0 || n > MaxTokenBytes || n > uint64(len(d.b)-d.off)) {
			d.fail("term of %d bytes", n)
		}
		if d.err != nil {
			break
		}
		t.name, t.nameLen = d.off, int(n)
		d.off += int(n)
		size := d.uv()
		if d.err == nil && size > uint64(len(d.b)-d.off) {
			d.fail("postings of term %d overrun the file", i)
		}
		if d.err != nil {
			break
		}
		t.off, t.size = d.off, int(size)
		d.off += int(size)
		if i > 0 && bytes.Compare(d.b[out.terms[i-1].name:out.terms[i-1].name+out.terms[i-1].nameLen], d.b[t.name:t.name+t.nameLen]) >= 0 {
			d.fail("search terms out of order at term %d", i)
		}
	}
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d trailing bytes", len(d.b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

// postings decodes the postings of term i, checking every position.
func (s *searchData) postings(i int) ([]posting, error) {
	t := s.terms[i]
	d := &decoder{b: s.raw[t.off : t.off+t.size]}
	name := s.raw[t.name : t.name+t.nameLen]
	out := make([]posting, d.count(2))
	pos := 0
	for j := range out {
		delta := d.uv()
		if d.err != nil {
			break
		}
		if j > 0 && delta == 0 || delta >= uint64(len(s.events)) || pos+int(delta) >= len(s.events) || d.off >= len(d.b) {
			d.fail("posting of %q out of range", name)
			break
		}
		pos += int(delta)
		out[j] = posting{event: pos, fields: d.b[d.off]}
		d.off++
	}
	if d.err == nil && d.off != len(d.b) {
		d.fail("postings of %q: trailing bytes", name)
	}
	return out, d.err
}

// find returns the position of term in s.terms, or -1.
func (s *searchData) find(term string) int {
	i, ok := slices.BinarySearchFunc(s.terms, term, func(t termRef, name string) int {
		return strings.Compare(string(s.raw[t.name:t.name+t.nameLen]), name)
	})
	if !ok {
		return -1
	}
	return i
}
