package objects

import (
	"errors"
	"fmt"
	"slices"
)

// ErrSpliceEvents reports an Append whose set or drop names "events": the
// events list is the base's plus added, never replaced.
var ErrSpliceEvents = errors.New("append: events is derived, not set or dropped")

// spliceMember is one member of the body Append writes.
type spliceMember struct {
	key    string
	raw    []byte // the value's canonical bytes; nil for the events list
	tokens int
}

// Append builds the schema-1 run that extends b's run: the payload a full
// encoder would derive from b's (its members less those drop names and
// those set replaces, plus set) with events b's list followed by added,
// encoded as NewJSONObject(b.Algo(), TypeRun, 1, payload) encodes it, byte
// for byte (TestRunBodyAppendMatchesFull), and failing where it fails
// (lone surrogates, unencodable values, duplicate keys, the token bound).
// It costs a copy of b's body and the encoding of set, not a Value or an
// oid per event: b's member bytes are canonical already (SplitRunBody
// checked them), so the new body is b's bytes with the new oids written at
// the end of the events list and set's members encoded in their canonical
// places.
//
// The returned object's Value is not parsed (Object.Parsed is false). An
// added oid that is not an event of b's profile is ErrNotSpliceable (its
// list could not be split again); callers use the full encoder then.
func (b *RunBody) Append(added []OID, set []Member, drop map[string]bool) (*Object, error) {
	if drop["events"] {
		return nil, ErrSpliceEvents
	}
	for _, id := range added {
		if id.Type != TypeEvent || id.Algo != b.algo {
			return nil, fmt.Errorf("%w: %s is not an event oid of %s", ErrNotSpliceable, id, b.algo)
		}
	}
	replaced := make(map[string]bool, len(set))
	for _, m := range set {
		if m.Key == "events" {
			return nil, ErrSpliceEvents
		}
		replaced[m.Key] = true
	}
	// NewJSONObject's order: lone surrogates over the whole payload first,
	// then the canonical encoding, in key order.
	for _, m := range set {
		if hasRawSurrogate(m.Key) {
			return nil, Errorf(ReasonTextLoneSurrogate, "key holds a lone surrogate")
		}
		if err := checkNoLoneSurrogate(m.Value, 1); err != nil {
			return nil, err
		}
	}
	out := make([]spliceMember, 0, len(b.members)+len(set)+1)
	for _, m := range b.members {
		if m.key != "events" && (replaced[m.key] || drop[m.key]) {
			continue
		}
		out = append(out, spliceMember{key: m.key, raw: m.raw, tokens: m.tokens})
	}
	if b.events < 0 {
		out = append(out, spliceMember{key: "events"})
	}
	size := len(b.body) + len(added)*(eventElemLen(b.algo)+1) + 16
	for _, m := range set {
		out = append(out, spliceMember{key: m.Key, raw: nil, tokens: -1})
	}
	slices.SortStableFunc(out, func(x, y spliceMember) int { return compareUTF16(x.key, y.key) })
	// Encode set's values in key order, as the full encoder does, which
	// meets a repeated key where it sorts.
	setValue := make(map[string]*Value, len(set))
	for i := range set {
		setValue[set[i].Key] = &set[i].Value
	}
	for i := range out {
		if i > 0 && out[i-1].key == out[i].key {
			return nil, fmt.Errorf("canonical json: key %q: %w", out[i].key, ErrDuplicateMember)
		}
		if out[i].tokens != -1 {
			continue
		}
		if _, err := appendStringV3(nil, out[i].key); err != nil {
			return nil, err
		}
		raw, err := appendV3(nil, setValue[out[i].key], 1)
		if err != nil {
			return nil, err
		}
		out[i].raw, out[i].tokens = raw, countTokens(raw)
		size += len(raw) + len(out[i].key) + 4
	}
	return b.writeSplice(out, added, size)
}

// writeSplice writes the members of out in order, the events list being
// b's with added at its end, and names the result.
func (b *RunBody) writeSplice(out []spliceMember, added []OID, size int) (*Object, error) {
	count := b.count + len(added)
	tokens := 2
	dst := make([]byte, 0, size)
	dst = append(dst, '{')
	for i, m := range out {
		if i > 0 {
			dst = append(dst, ',')
			tokens++
		}
		dst, _ = appendStringV3(dst, m.key) // checked canonical or encodable
		dst = append(dst, ':')
		tokens++
		if m.key != "events" {
			dst = append(dst, m.raw...)
			tokens += m.tokens
			continue
		}
		dst = b.appendEventList(dst, added)
		tokens += listTokens(count)
	}
	dst = append(dst, '}')
	if tokens > MaxBodyTokens {
		return nil, Errorf(ReasonShapeTokensExceeded, "json has more than %d structural tokens", MaxBodyTokens)
	}
	return &Object{ID: deriveID(b.algo, TypeRun, 1, dst), Type: TypeRun, Schema: 1, Body: dst, unparsed: true}, nil
}

// appendEventList writes b's events list with added at its end.
func (b *RunBody) appendEventList(dst []byte, added []OID) []byte {
	list := b.eventList()
	if b.count == 0 {
		dst = append(dst, '[')
	} else {
		dst = append(dst, list[:len(list)-1]...)
	}
	for i, id := range added {
		if i > 0 || b.count > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = id.AppendString(dst)
		dst = append(dst, '"')
	}
	return append(dst, ']')
}
