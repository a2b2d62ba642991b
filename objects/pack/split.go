package pack

import (
	"bytes"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Cutting a decoded block into envelopes without its index (RebuildIndex,
// rebuild.go). A JSON envelope ends where its body's JSON value ends.
// A blob's body has no end marker: it ends where another canonical header
// starts or at the block's end, and any blob could swallow the envelopes
// after it (their bytes are valid blob content). So every whole cut of the
// block is a path through the candidate boundaries (offsets where a
// canonical header starts), and the cut chosen is the one that
//
//  1. names the most wanted oids (keys of the damaged index, links of the
//     block's JSON objects, and whatever the caller knows is referenced):
//     a blob that really holds an envelope header is referenced by the
//     event that recorded it, so its whole form wins over its pieces;
//  2. then has the most envelopes: a writer stores each object once, and
//     blobs holding canonical envelope headers are rare.
//
// Two cuts that tie on both are refused as ambiguous (ErrAmbiguous),
// never guessed. A blob may span at most maxBlobSpan candidate boundaries,
// which bounds the work per block to linear in its candidates.
const maxBlobSpan = 8

// splitEdge is one envelope candidate: raw[from:to] decodes to key.
type splitEdge struct {
	to  int // candidate index
	key spKey
}

// splitScore ranks a cut (see above); ways counts the cuts reaching it,
// capped at 2.
type splitScore struct {
	ok            bool
	wanted, count int
	ways          int
	edge          splitEdge
}

// better reports whether s beats t.
func (s splitScore) better(t splitScore) bool {
	if s.wanted != t.wanted {
		return s.wanted > t.wanted
	}
	return s.count > t.count
}

// splitEnvelopes cuts raw into envelopes; wanted reports oids known to be
// referenced (it may be nil).
func splitEnvelopes(raw []byte, a objects.Algo, wanted func(objects.OID) bool) ([]spEntry, error) {
	cands := headerCandidates(raw)
	if len(cands) == 0 || cands[0] != 0 {
		return nil, fmt.Errorf("%w: the block does not start with an envelope header", ErrCorrupt)
	}
	cands = append(cands, len(raw))
	at := make(map[int]int, len(cands))
	for i, c := range cands {
		at[c] = i
	}
	local := map[objects.OID]bool{}
	edges := make([][]splitEdge, len(cands))
	for i := range len(cands) - 1 {
		lf, t, _ := headerAt(raw, cands[i])
		var ends []int
		if t != objects.TypeBlob {
			if end := jsonValueEnd(raw, lf+1); end >= 0 {
				if j, ok := at[end]; ok {
					ends = append(ends, j)
				}
			}
		} else {
			for j := i + 1; j < len(cands) && j <= i+maxBlobSpan; j++ {
				ends = append(ends, j)
			}
		}
		for _, j := range ends {
			o, err := objects.DecodeEnvelope(a, raw[cands[i]:cands[j]])
			if err != nil {
				continue
			}
			edges[i] = append(edges[i], splitEdge{to: j, key: spKeyOf(o.ID)})
			if links, err := objects.Links(o); err == nil {
				for _, l := range links {
					local[l] = true
				}
			}
		}
	}
	isWanted := func(k spKey) int {
		t, _ := spTypeOf(k[32])
		id := objects.OID{Type: t, Algo: a}
		copy(id.Digest[:], k[:32])
		if local[id] || wanted != nil && wanted(id) {
			return 1
		}
		return 0
	}
	best := make([]splitScore, len(cands))
	best[len(cands)-1] = splitScore{ok: true, ways: 1}
	for i := len(cands) - 2; i >= 0; i-- {
		for _, e := range edges[i] {
			next := best[e.to]
			if !next.ok {
				continue
			}
			s := splitScore{ok: true, wanted: next.wanted + isWanted(e.key), count: next.count + 1, ways: next.ways, edge: e}
			switch {
			case !best[i].ok || s.better(best[i]):
				best[i] = s
			case !best[i].better(s):
				best[i].ways = min(best[i].ways+s.ways, 2)
			}
		}
	}
	if !best[0].ok {
		return nil, fmt.Errorf("%w: the block does not cut into whole envelopes", ErrCorrupt)
	}
	if best[0].ways > 1 {
		return nil, fmt.Errorf("%w: a blob holds bytes that read as envelope headers, and no intact index or reference says where it ends", ErrAmbiguous)
	}
	var out []spEntry
	for i := 0; i < len(cands)-1; i = best[i].edge.to {
		e := best[i].edge
		out = append(out, spEntry{key: e.key, start: uint32(cands[i]), length: uint32(cands[e.to] - cands[i])})
	}
	return out, nil
}

// headerCandidates returns the offsets in raw where a canonical envelope
// header starts, in order.
func headerCandidates(raw []byte) []int {
	var out []int
	for c := 0; c < len(raw); {
		i := bytes.Index(raw[c:], []byte(`{"encoding":"`))
		if i < 0 {
			break
		}
		if _, _, ok := headerAt(raw, c+i); ok {
			out = append(out, c+i)
		}
		c += i + 1
	}
	return out
}

// headerAt reports whether a canonical envelope header starts at pos,
// with the offset of the LF ending it and its type.
func headerAt(raw []byte, pos int) (lf int, t objects.Type, ok bool) {
	if pos >= len(raw) {
		return 0, "", false
	}
	window := raw[pos:min(len(raw), pos+objects.MaxHeaderBytes+1)]
	i := bytes.IndexByte(window, '\n')
	if i < 0 {
		return 0, "", false
	}
	t, _, ok = objects.CanonicalHeader(window[:i])
	return pos + i, t, ok
}

// jsonValueEnd returns the offset just past the JSON object or array that
// starts at i (canonical JSON: no whitespace), or -1.
func jsonValueEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '{' && b[i] != '[' {
		return -1
	}
	depth, inStr, esc := 0, false, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
		case inStr:
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}
