package conformance

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// The four escapes of the tagged value tree (PROTOCOL "The tagged value
// tree"), each recognised only on a single-key object whose key is exactly
// one of them.
const (
	tagInt    = "$i"
	tagFloat  = "$f"
	tagUnits  = "$u"
	tagObject = "$obj"
)

// DecodeTagged decodes the JSON text of a tagged value tree into a Value.
// Integers of any magnitude become KindInt, $f literals (and "nan", "inf",
// "-inf") KindFloat, and $u code units a WTF-8 string in which an unpaired
// surrogate is the three bytes ED A0..BF xx.
func DecodeTagged(data []byte) (objects.Value, error) {
	n, err := parseTree(data)
	if err != nil {
		return objects.Value{}, err
	}
	return taggedValue(n)
}

func taggedValue(n node) (objects.Value, error) {
	switch n.kind {
	case nodeNull:
		return objects.Null(), nil
	case nodeBool:
		return objects.Bool(n.boolean), nil
	case nodeString:
		return objects.String(n.str), nil
	case nodeNumber:
		// PROTOCOL: a bare number never appears in input.value, so one here
		// has no defined type.
		return objects.Value{}, fmt.Errorf("%w: bare number %s", ErrTagged, n.str)
	case nodeArray:
		elems := make([]objects.Value, 0, len(n.arr))
		for _, e := range n.arr {
			v, err := taggedValue(e)
			if err != nil {
				return objects.Value{}, err
			}
			elems = append(elems, v)
		}
		return objects.Array(elems...), nil
	}
	if len(n.obj) == 1 {
		m := n.obj[0]
		switch m.key {
		case tagInt:
			return tagIntValue(m.value)
		case tagFloat:
			return tagFloatValue(m.value)
		case tagUnits:
			s, err := tagUnitsString(m.value)
			if err != nil {
				return objects.Value{}, err
			}
			return objects.String(s), nil
		case tagObject:
			return tagObjectValue(m.value)
		}
	}
	return literalObject(n.obj)
}

func literalObject(members []nodeMember) (objects.Value, error) {
	out := make([]objects.Member, 0, len(members))
	for _, m := range members {
		v, err := taggedValue(m.value)
		if err != nil {
			return objects.Value{}, err
		}
		out = append(out, objects.Member{Key: m.key, Value: v})
	}
	return objectValue(out), nil
}

func tagIntValue(n node) (objects.Value, error) {
	if n.kind != nodeString || !isDecimalInt(n.str) {
		return objects.Value{}, fmt.Errorf("%w: $i payload must be a decimal string", ErrTagged)
	}
	b, ok := new(big.Int).SetString(n.str, 10)
	if !ok {
		return objects.Value{}, fmt.Errorf("%w: $i payload %.40q", ErrTagged, n.str)
	}
	return objects.BigInt(b), nil
}

// isDecimalInt reports whether s is -?[0-9]+.
func isDecimalInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func tagFloatValue(n node) (objects.Value, error) {
	if n.kind != nodeString {
		return objects.Value{}, fmt.Errorf("%w: $f payload must be a string", ErrTagged)
	}
	switch n.str {
	case "nan":
		return objects.Float(math.NaN()), nil
	case "inf":
		return objects.Float(math.Inf(1)), nil
	case "-inf":
		return objects.Float(math.Inf(-1)), nil
	}
	if !isFloatLiteral(n.str) {
		return objects.Value{}, fmt.Errorf("%w: $f payload %.40q", ErrTagged, n.str)
	}
	f, err := strconv.ParseFloat(n.str, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return objects.Value{}, fmt.Errorf("%w: $f payload %.40q", ErrTagged, n.str)
	}
	return objects.Float(f), nil // out of range: ±Inf, as Python's float() gives
}

// isFloatLiteral reports whether s is a decimal literal -?D+(.D+)?([eE][+-]?D+)?
// or one without an integer part; it keeps Go's hex floats, underscores and
// "Infinity" spellings out.
func isFloatLiteral(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// tagUnitsString turns a list of UTF-16 code units (four lowercase hex
// digits each) into WTF-8: a high surrogate followed by a low one is one
// supplementary code point, and any other surrogate is encoded on its own
// as the generalized-UTF-8 bytes ED A0..BF xx.
func tagUnitsString(n node) (string, error) {
	if n.kind != nodeArray {
		return "", fmt.Errorf("%w: $u payload must be a list", ErrTagged)
	}
	units := make([]uint16, 0, len(n.arr))
	for _, e := range n.arr {
		u, ok := parseUnit(e)
		if !ok {
			return "", fmt.Errorf("%w: $u code units are four lowercase hex digits", ErrTagged)
		}
		units = append(units, u)
	}
	var out []byte
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if u >= 0xD800 && u <= 0xDBFF && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF {
			r := 0x10000 + (u-0xD800)<<10 + (rune(units[i+1]) - 0xDC00)
			out = utf8.AppendRune(out, r)
			i++
			continue
		}
		if u >= 0xD800 && u <= 0xDFFF {
			// utf8.AppendRune would write U+FFFD; WTF-8 keeps the surrogate.
			out = append(out, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
			continue
		}
		out = utf8.AppendRune(out, u)
	}
	return string(out), nil
}

func parseUnit(n node) (uint16, bool) {
	if n.kind != nodeString || len(n.str) != 4 {
		return 0, false
	}
	var u uint16
	for i := 0; i < 4; i++ {
		c := n.str[i]
		switch {
		case c >= '0' && c <= '9':
			u = u<<4 | uint16(c-'0')
		case c >= 'a' && c <= 'f':
			u = u<<4 | uint16(c-'a'+10)
		default:
			return 0, false
		}
	}
	return u, true
}

// tagObjectValue decodes {"$obj": {...}} (a literal object, so a sole
// "$"-key is data) or {"$obj": [[key, value], ...]} (keys that need a tagged
// spelling themselves).
func tagObjectValue(n node) (objects.Value, error) {
	if n.kind == nodeObject {
		return literalObject(n.obj)
	}
	if n.kind != nodeArray {
		return objects.Value{}, fmt.Errorf("%w: $obj payload must be an object or a list of pairs", ErrTagged)
	}
	out := make([]objects.Member, 0, len(n.arr))
	seen := map[string]bool{}
	for _, pair := range n.arr {
		if pair.kind != nodeArray || len(pair.arr) != 2 {
			return objects.Value{}, fmt.Errorf("%w: $obj pair must be [key, value]", ErrTagged)
		}
		k, err := taggedValue(pair.arr[0])
		if err != nil {
			return objects.Value{}, err
		}
		if k.Kind != objects.KindString {
			return objects.Value{}, fmt.Errorf("%w: $obj key must be a string", ErrTagged)
		}
		if seen[k.Str] {
			return objects.Value{}, fmt.Errorf("%w: %q", errTreeDuplicate, k.Str)
		}
		seen[k.Str] = true
		v, err := taggedValue(pair.arr[1])
		if err != nil {
			return objects.Value{}, err
		}
		out = append(out, objects.Member{Key: k.Str, Value: v})
	}
	return objectValue(out), nil
}

// plainValue converts an untagged JSON tree (a vector's expected output, an
// adapter's answer) into a Value; a number is an integer iff its literal has
// no '.', 'e' or 'E' (SPEC §0.2).
func plainValue(n node) (objects.Value, error) {
	switch n.kind {
	case nodeNull:
		return objects.Null(), nil
	case nodeBool:
		return objects.Bool(n.boolean), nil
	case nodeString:
		return objects.String(n.str), nil
	case nodeNumber:
		if isDecimalInt(n.str) {
			b, _ := new(big.Int).SetString(n.str, 10)
			return objects.BigInt(b), nil
		}
		f, err := strconv.ParseFloat(n.str, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return objects.Value{}, fmt.Errorf("number %.40q: %w", n.str, err)
		}
		return objects.Float(f), nil
	case nodeArray:
		elems := make([]objects.Value, 0, len(n.arr))
		for _, e := range n.arr {
			v, err := plainValue(e)
			if err != nil {
				return objects.Value{}, err
			}
			elems = append(elems, v)
		}
		return objects.Array(elems...), nil
	}
	members := make([]objects.Member, 0, len(n.obj))
	for _, m := range n.obj {
		v, err := plainValue(m.value)
		if err != nil {
			return objects.Value{}, err
		}
		members = append(members, objects.Member{Key: m.key, Value: v})
	}
	return objectValue(members), nil
}

// DecodePlain decodes ordinary JSON text (no tags) into a Value.
func DecodePlain(data []byte) (objects.Value, error) {
	n, err := parseTree(data)
	if err != nil {
		return objects.Value{}, err
	}
	return plainValue(n)
}

// objectValue builds a KindObject Value from members (kept non-nil, so an
// empty object stays {} rather than null).
func objectValue(members []objects.Member) objects.Value {
	if members == nil {
		members = []objects.Member{}
	}
	return objects.Value{Kind: objects.KindObject, Object: members}
}
