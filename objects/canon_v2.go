package objects

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxCanonV2Depth bounds the container nesting the v2 canonicalizer walks
// (SPEC §0.3, OpenTine's MAX_CANONICAL_DEPTH): 768 nested containers are
// written, 769 refused with canon.depth-exceeded. JSON input cannot reach it
// because the byte scanner stops at 512.
const MaxCanonV2Depth = 768

// CanonV2 returns the v2 canonical JSON encoding of v (SPEC §0.3): exactly
// the bytes of CPython json.dumps(v, sort_keys=True, separators=(",", ":"),
// ensure_ascii=True, allow_nan=False). The output is pure ASCII; keys sort
// by code point; integers of any magnitude are written in full; floats use
// Python repr. A lone surrogate carried as WTF-8 is written as its \udxxx
// escape, which only this encoder accepts (SPEC §0.1).
//
// It fails with a *FormatError: canon.non-finite, canon.unencodable-text
// (bytes that are not even WTF-8) or canon.depth-exceeded.
func CanonV2(v Value) ([]byte, error) {
	return AppendCanonV2(nil, v)
}

// AppendCanonV2 appends the v2 canonical encoding of v to dst, as CanonV2.
// On error it returns dst unchanged along with the error.
func AppendCanonV2(dst []byte, v Value) ([]byte, error) {
	out, err := appendV2(dst, &v, 0)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// appendV2 encodes v, which sits inside depth containers.
func appendV2(dst []byte, v *Value, depth int) ([]byte, error) {
	switch v.Kind {
	case KindNull:
		return append(dst, "null"...), nil
	case KindBool:
		if v.Bool {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case KindInt:
		// SPEC §0.3: Python ints are unbounded; the 4096-digit rule belongs
		// to the .tine reader, not to this encoder.
		if v.Big != nil {
			return v.Big.Append(dst, 10), nil
		}
		return strconv.AppendInt(dst, v.Int, 10), nil
	case KindFloat:
		return appendFloatV2(dst, v.Float)
	case KindString:
		return appendStringV2(dst, v.Str)
	case KindArray:
		if depth >= MaxCanonV2Depth {
			return dst, Errorf(ReasonCanonDepthExceeded, "more than %d nested containers", MaxCanonV2Depth)
		}
		dst = append(dst, '[')
		for i := range v.Array {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendV2(dst, &v.Array[i], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case KindObject:
		if depth >= MaxCanonV2Depth {
			return dst, Errorf(ReasonCanonDepthExceeded, "more than %d nested containers", MaxCanonV2Depth)
		}
		return appendObjectV2(dst, v.Object, depth)
	}
	return dst, fmt.Errorf("canonical json v2: invalid value kind %d", v.Kind)
}

// appendObjectV2 writes members sorted by code point. Byte order of WTF-8
// keys is code-point order, lone surrogates included (SPEC §0.3 item 3).
func appendObjectV2(dst []byte, ms []Member, depth int) ([]byte, error) {
	order := []int(nil)
	for i := 1; i < len(ms); i++ {
		if ms[i-1].Key >= ms[i].Key {
			order = make([]int, len(ms))
			for j := range order {
				order[j] = j
			}
			slices.SortFunc(order, func(a, b int) int { return strings.Compare(ms[a].Key, ms[b].Key) })
			break
		}
	}
	dst = append(dst, '{')
	for i := range ms {
		m := &ms[i]
		if order != nil {
			m = &ms[order[i]]
			if i > 0 && ms[order[i-1]].Key == m.Key {
				return dst, fmt.Errorf("canonical json v2: key %q: %w", m.Key, ErrDuplicateMember)
			}
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendStringV2(dst, m.Key); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if dst, err = appendV2(dst, &m.Value, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendFloatV2 writes f as CPython float repr does (SPEC §0.3 item 5):
// shortest round-trip digits; scientific iff the decimal exponent x is
// below -4 or at least 16, with a signed exponent of at least two digits;
// otherwise positional with ".0" kept on integral values ("-0.0" included).
func appendFloatV2(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, Errorf(ReasonCanonNonFinite, "float %v is not finite", f)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	if _, x := splitExponent(dst[start:]); f == 0 || (x >= -4 && x < 16) {
		dst = strconv.AppendFloat(dst[:start], f, 'f', -1, 64)
		if !slices.Contains(dst[start:], '.') {
			dst = append(dst, '.', '0')
		}
	}
	return dst, nil
}

// appendStringV2 writes s in Python's ensure_ascii form: every byte outside
// 0x20..0x7E is escaped, DEL included; non-BMP characters become a
// lowercase surrogate pair; a WTF-8 lone surrogate becomes its own escape.
func appendStringV2(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7F && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[last:i]...)
		if c < 0x80 {
			if c == 0x7F {
				dst = append(dst, `\u007f`...)
			} else {
				dst = appendShortEscape(dst, c)
			}
			i++
			last = i
			continue
		}
		r, n := decodeWTF8String(s[i:])
		if n == 0 {
			return dst, Errorf(ReasonCanonUnencodableText, "string %q holds invalid UTF-8", abbreviate(s))
		}
		if r >= 0x10000 {
			r -= 0x10000
			dst = appendU4(dst, 0xD800+(r>>10))
			dst = appendU4(dst, 0xDC00+(r&0x3FF))
		} else {
			dst = appendU4(dst, r)
		}
		i += n
		last = i
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"'), nil
}

// appendU4 writes \uxxxx with lowercase hex.
func appendU4(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
}
