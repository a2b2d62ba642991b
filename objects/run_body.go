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
		ve := 0
		if key == "events" {
			// Its elements have a fixed length: checking them finds the
			// list's end, with no second scan of its bytes.
			var size int
			if size, b.count, err = scanEventList(a, body[vs:], trusted, trustedCount); err != nil {
				return nil, err
			}
			ve = vs + size
		} else {
			ve = skipValueBytes(body, vs)
		}
		if ve >= n || (body[ve] != ',' && body[ve] != '}') || ve == vs {
			return nil, fmt.Errorf("%w: member %q", ErrNotSpliceable, key)
		}
		m := runMember{key: key, raw: body[vs:ve]}
		if key == "events" {
			m.tokens = listTokens(b.count)
			b.events = len(b.members)
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

// scanEventList checks the events list data begins with, element by
// element (see SplitRunBody), and returns its length in bytes (through
// its closing bracket) and its number of events. A prefix equal to
// trusted, a list already checked without its closing bracket holding
// trustedCount events, is skipped.
func scanEventList(a Algo, data, trusted []byte, trustedCount int) (int, int, error) {
	n := len(data)
	if n < 2 || data[0] != '[' {
		return 0, 0, fmt.Errorf("%w: events is not a list", ErrNotSpliceable)
	}
	if data[1] == ']' {
		return 2, 0, nil
	}
	pre := eventElemPrefix(a)
	el := eventElemLen(a)
	i, count := 1, 0
	if t := len(trusted); t > 1 && t < n && bytes.HasPrefix(data, trusted) && (data[t] == ',' || data[t] == ']') {
		i, count = t, trustedCount
		if data[i] == ']' {
			return i + 1, count, nil
		}
		i++
	}
	for {
		if i+el >= n || string(data[i:i+len(pre)]) != pre || data[i+el-1] != '"' || !lowerHex(data[i+len(pre):i+el-1]) {
			return 0, 0, fmt.Errorf("%w: events[%d] is not a canonical event oid", ErrNotSpliceable, count)
		}
		count++
		i += el
		switch data[i] {
		case ']':
			return i + 1, count, nil
		case ',':
			i++
		default:
			return 0, 0, fmt.Errorf("%w: events list", ErrNotSpliceable)
		}
	}
}

// lowerHex reports whether b is all lowercase hex digits. It checks
// eight bytes at a time (lowerHexWord): a run's events list is scanned
// whole by every split, 64 digits per event.
func lowerHex(b []byte) bool {
	for len(b) >= 8 {
		if !lowerHexWord(binary.LittleEndian.Uint64(b)) {
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

// lowerHexWord reports whether each byte of x is in '0'..'9' or 'a'..'f'.
// For a byte c < 0x80, c + (0x80 - lo) has its high bit set exactly when
// c >= lo, and no byte's sum carries into the next.
func lowerHexWord(x uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	if x&high != 0 {
		return false
	}
	atLeast := func(lo uint64) uint64 { return (x + (0x80-lo)*ones) & high }
	digit := atLeast('0') &^ atLeast('9'+1)
	letter := atLeast('a') &^ atLeast('f'+1)
	return digit|letter == high
}
