package objects

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrNotSpliceable reports a run body SplitRunBody does not take apart:
// not a canonical JSON object, or an events member that is not a list of
// canonically spelt event oids of the run's hash profile. Callers fall
// back to parsing the body (and to the full encoder and checks).
var ErrNotSpliceable = errors.New("run body cannot be split")

// RunBody is a run object's canonical body split into its top-level
// members without parsing its events list: the other members are parsed
// (they are small: roots, tips, status, manifests...), the events list is
// kept as bytes and counted. It lets an append build the next run's body
// (Append) and check it against its base (ValidateAppend) for the cost of
// a few scans of the bytes, never a Value or an oid per event.
type RunBody struct {
	algo    Algo
	body    []byte
	members []runMember
	events  int // index of the events member in members, -1 when absent
	count   int // events in the list

	index    map[OID]int // built by Index after maxListSearches scans
	searches int
}

// runMember is one top-level member: its key, the bytes of its value, the
// value parsed (zero for the events member) and its structural tokens.
type runMember struct {
	key    string
	raw    []byte
	value  Value
	tokens int
}

// SplitRunBody splits body, the canonical body of a run of hash profile a.
// It checks what Append and ValidateAppend rely on, so a body it accepts
// is one DecodeEnvelope accepts: top-level keys canonical, sorted and
// unique; every member other than events a canonical value within the
// depth and token bounds (parsed as decodeJSONBody parses it); events, when
// present, a list whose elements are each "event:<a>:<64 lowercase hex>".
// Anything else is ErrNotSpliceable. It costs one scan of the events
// list's bytes.
func SplitRunBody(a Algo, body []byte) (*RunBody, error) {
	return splitRunBody(a, body, nil, 0)
}

// splitRunBody is SplitRunBody; when the events list's bytes begin with
// trusted (a checked list without its closing bracket, holding
// trustedCount events), those elements are not scanned again.
func splitRunBody(a Algo, body, trusted []byte, trustedCount int) (*RunBody, error) {
	if !a.Valid() {
		return nil, ErrUnknownAlgo
	}
	n := len(body)
	if n < 2 || body[0] != '{' || body[n-1] != '}' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrNotSpliceable)
	}
	b := &RunBody{algo: a, body: body, events: -1}
	if n == 2 {
		return b, nil
	}
	i := 1
	for {
		if body[i] != '"' {
			return nil, fmt.Errorf("%w: byte %d", ErrNotSpliceable, i)
		}
		end := skipStringBytes(body, i+1)
		if end+1 >= n || body[end+1] != ':' {
			return nil, fmt.Errorf("%w: byte %d", ErrNotSpliceable, i)
		}
		key, err := canonicalKey(body[i : end+1])
		if err != nil {
			return nil, err
		}
		if len(b.members) > 0 && compareUTF16(b.members[len(b.members)-1].key, key) >= 0 {
			return nil, fmt.Errorf("%w: key %q out of order", ErrNotSpliceable, key)
		}
		vs := end + 2
		var ve int
		if key == "events" && vs < n && body[vs] == '[' {
			// The list is checked and delimited in one pass.
			if b.count, ve, err = scanEventList(a, body, vs, trusted, trustedCount); err != nil {
				return nil, err
			}
		} else {
			ve = skipValueBytes(body, vs)
		}
		if ve >= n || (body[ve] != ',' && body[ve] != '}') || ve == vs {
			return nil, fmt.Errorf("%w: member %q", ErrNotSpliceable, key)
		}
		m := runMember{key: key, raw: body[vs:ve]}
		if key == "events" {
			b.events = len(b.members)
			m.tokens = listTokens(b.count)
			if body[vs] != '[' {
				// A falsy events value is an empty list to the link rules
				// (SPEC §1.5: "or []"), and an append replaces it.
				if err := m.parse(); err != nil {
					return nil, err
				}
				if m.value.Truthy() {
					return nil, fmt.Errorf("%w: events is a JSON %s, not a list", ErrNotSpliceable, m.value.Kind)
				}
			}
		} else if err := m.parse(); err != nil {
			return nil, err
		}
		b.members = append(b.members, m)
		if body[ve] == '}' {
			if ve != n-1 {
				return nil, fmt.Errorf("%w: bytes after the object", ErrNotSpliceable)
			}
			break
		}
		i = ve + 1
		if i >= n {
			return nil, fmt.Errorf("%w: truncated", ErrNotSpliceable)
		}
	}
	if b.tokens() > MaxBodyTokens {
		return nil, fmt.Errorf("%w: more than %d structural tokens", ErrNotSpliceable, MaxBodyTokens)
	}
	return b, nil
}

// canonicalKey parses a quoted key and requires its canonical spelling.
func canonicalKey(quoted []byte) (string, error) {
	v, err := ParseJSON(quoted, ParseOptions{})
	if err != nil || v.Kind != KindString {
		return "", fmt.Errorf("%w: key %.40q", ErrNotSpliceable, quoted)
	}
	canon, err := appendStringV3(nil, v.Str)
	if err != nil || !bytes.Equal(canon, quoted) {
		return "", fmt.Errorf("%w: key %.40q is not canonical", ErrNotSpliceable, quoted)
	}
	return v.Str, nil
}

// parse parses a member value as decodeJSONBody would parse it inside the
// body (one container deep) and requires it to be canonical there.
func (m *runMember) parse() error {
	if err := ScanShape(m.raw, MaxBodyTokens); err != nil {
		return fmt.Errorf("%w: member %q: %w", ErrNotSpliceable, m.key, err)
	}
	v, err := ParseJSON(m.raw, ParseOptions{DemoteBigInts: true})
	if err != nil {
		return fmt.Errorf("%w: member %q: %w", ErrNotSpliceable, m.key, err)
	}
	canon, err := appendV3(nil, &v, 1)
	if err != nil || !bytes.Equal(canon, m.raw) {
		return fmt.Errorf("%w: member %q is not canonical", ErrNotSpliceable, m.key)
	}
	m.value, m.tokens = v, countTokens(m.raw)
	return nil
}

// tokens is the body's structural token count, as ScanShape counts it.
func (b *RunBody) tokens() int {
	t := 2 // the braces
	for i, m := range b.members {
		t += 1 + m.tokens // the colon
		if i > 0 {
			t++ // the comma
		}
	}
	return t
}

// listTokens is the structural tokens of a flat list of n strings.
func listTokens(n int) int {
	if n == 0 {
		return 2
	}
	return n + 1
}

// countTokens counts ScanShape's structural tokens in data.
func countTokens(data []byte) int {
	t := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = skipStringBytes(data, i+1)
		case '[', '{', ']', '}', ',', ':':
			t++
		}
	}
	return t
}

// skipValueBytes returns the index just past the JSON value starting at
// data[i], matching brackets outside strings; for a scalar, the index of
// the first ',', ']' or '}'. It does not check the value's grammar.
func skipValueBytes(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipStringBytes(data, i+1) + 1
	case '[', '{':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipStringBytes(data, i+1)
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', ']', '}':
			return i
		}
	}
	return i
}

// eventElemPrefix is how every element of a canonical events list of
// profile a begins: a quote and the oid's type and profile.
func eventElemPrefix(a Algo) string { return `"event:` + string(a) + ":" }

// eventElemLen is the length of one quoted event oid of profile a.
func eventElemLen(a Algo) int { return len(eventElemPrefix(a)) + 64 + 1 }

// scanEventList checks the events list starting at body[start] (a '[')
// element by element (see SplitRunBody) and returns its length and the
// index just past it. A prefix equal to trusted, a list already checked
// without its closing bracket holding trustedCount events, is skipped.
func scanEventList(a Algo, body []byte, start int, trusted []byte, trustedCount int) (count, end int, err error) {
	raw := body[start:]
	n := len(raw)
	if n >= 2 && raw[1] == ']' {
		return 0, start + 2, nil
	}
	pre := eventElemPrefix(a)
	el := eventElemLen(a)
	i := 1
	if t := len(trusted); t > 1 && t < n && bytes.HasPrefix(raw, trusted) && (raw[t] == ',' || raw[t] == ']') {
		i, count = t, trustedCount
		if raw[i] == ']' {
			return count, start + i + 1, nil
		}
		i++
	}
	for {
		if i+el >= n || string(raw[i:i+len(pre)]) != pre || raw[i+el-1] != '"' || !lowerHex(raw[i+len(pre):i+el-1]) {
			return 0, 0, fmt.Errorf("%w: events[%d] is not a canonical event oid", ErrNotSpliceable, count)
		}
		count++
		i += el
		switch raw[i] {
		case ']':
			return count, start + i + 1, nil
		case ',':
			i++
		default:
			return 0, 0, fmt.Errorf("%w: events list", ErrNotSpliceable)
		}
	}
}

// Byte-lane constants of lowerHex8.
const (
	laneOnes = 0x0101010101010101
	laneLow7 = 0x7f7f7f7f7f7f7f7f
	laneHigh = 0x8080808080808080
)

// laneBetween sets the high bit of each byte of x whose value lies
// strictly between m and n, for x's bytes below 0x80 and m, n <= 0x80
// (each lane computed alone: no carry or borrow crosses a byte).
func laneBetween(x, m, n uint64) uint64 {
	return (laneOnes*(127+n) - x&laneLow7) & ^x & (x&laneLow7 + laneOnes*(127-m)) & laneHigh
}

// lowerHex8 reports whether the eight bytes of x are lowercase hex digits.
func lowerHex8(x uint64) bool {
	return x&laneHigh == 0 && laneBetween(x, '0'-1, '9'+1)|laneBetween(x, 'a'-1, 'f'+1) == laneHigh
}

// lowerHex reports whether b, 64 bytes long in the lists it checks, is
// all lowercase hex digits, eight bytes at a time.
func lowerHex(b []byte) bool {
	for len(b) >= 8 {
		if !lowerHex8(binary.LittleEndian.Uint64(b)) {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
