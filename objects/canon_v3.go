package objects

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ErrDuplicateMember reports a Value whose object repeats a key. A parsed
// Value never does; a hand-built one can, and no canonical form exists for it.
var ErrDuplicateMember = errors.New("object repeats a key")

// maxSafeBig is 2^53-1 as a big.Int, for the v3 integer range check.
var maxSafeBig = big.NewInt(maxSafeInt)

// CanonV3 returns the v3 canonical JSON encoding of v (SPEC §0.2, RFC 8785
// compatible): object members sorted by UTF-16 code units, no whitespace,
// raw UTF-8 text with the minimal escape set, integers within ±(2^53-1), and
// floats in ECMAScript Number#toString spelling.
//
// It fails with a *FormatError: canon.integer-overflow, canon.non-finite,
// canon.unencodable-text (a lone surrogate or invalid UTF-8 in a string or
// key) or canon.depth-exceeded (more than MaxJSONDepth nested containers).
func CanonV3(v Value) ([]byte, error) {
	return AppendCanonV3(nil, v)
}

// AppendCanonV3 appends the v3 canonical encoding of v to dst, as CanonV3.
// On error it returns dst unchanged along with the error.
func AppendCanonV3(dst []byte, v Value) ([]byte, error) {
	out, err := appendV3(dst, &v, 0)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// appendV3 encodes v, which sits inside depth containers.
func appendV3(dst []byte, v *Value, depth int) ([]byte, error) {
	switch v.Kind {
	case KindNull:
		return append(dst, "null"...), nil
	case KindBool:
		if v.Bool {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case KindInt:
		return appendIntV3(dst, v)
	case KindFloat:
		return appendFloatV3(dst, v.Float)
	case KindString:
		return appendStringV3(dst, v.Str)
	case KindArray:
		// SPEC §0.2: the outermost container is depth 0; depth 512 is refused.
		if depth >= MaxJSONDepth {
			return dst, Errorf(ReasonCanonDepthExceeded, "more than %d nested containers", MaxJSONDepth)
		}
		dst = append(dst, '[')
		for i := range v.Array {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendV3(dst, &v.Array[i], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case KindObject:
		if depth >= MaxJSONDepth {
			return dst, Errorf(ReasonCanonDepthExceeded, "more than %d nested containers", MaxJSONDepth)
		}
		return appendObjectV3(dst, v.Object, depth)
	}
	return dst, fmt.Errorf("canonical json: invalid value kind %d", v.Kind)
}

// appendObjectV3 writes members in UTF-16 code-unit order of their keys.
// Bodies read back from disk are already sorted, so the common case walks
// the members in place without sorting a copy.
func appendObjectV3(dst []byte, ms []Member, depth int) ([]byte, error) {
	order := []int(nil)
	for i := 1; i < len(ms); i++ {
		if c := compareUTF16(ms[i-1].Key, ms[i].Key); c >= 0 {
			order = make([]int, len(ms))
			for j := range order {
				order[j] = j
			}
			slices.SortFunc(order, func(a, b int) int { return compareUTF16(ms[a].Key, ms[b].Key) })
			break
		}
	}
	dst = append(dst, '{')
	for i := range ms {
		m := &ms[i]
		if order != nil {
			m = &ms[order[i]]
			if i > 0 && ms[order[i-1]].Key == m.Key {
				return dst, fmt.Errorf("canonical json: key %q: %w", m.Key, ErrDuplicateMember)
			}
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendStringV3(dst, m.Key); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if dst, err = appendV3(dst, &m.Value, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// compareUTF16 orders two keys by their UTF-16 code units (SPEC §0.2, RFC
// 8785 §3.2.3). This is code-point order except that a supplementary
// character (high surrogate D800..DBFF first) sorts before U+E000..U+FFFF.
// Bytes that are not UTF-8 fall back to byte order; the encoder refuses them
// anyway.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < 0x80 && b[i] < 0x80 {
		return int(a[i]) - int(b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, na := utf8.DecodeRuneInString(a[i:])
	rb, nb := utf8.DecodeRuneInString(b[i:])
	if (ra == utf8.RuneError && na <= 1) || (rb == utf8.RuneError && nb <= 1) {
		return int(a[i]) - int(b[i])
	}
	ua, ub := firstUnit(ra), firstUnit(rb)
	if ua != ub {
		return int(ua) - int(ub)
	}
	return int(ra) - int(rb)
}

// firstUnit returns the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}

// appendIntV3 writes an integer, refusing any beyond ±(2^53-1) (SPEC §0.2):
// a JavaScript reader could not hold it exactly.
func appendIntV3(dst []byte, v *Value) ([]byte, error) {
	if v.Big != nil {
		if v.Big.CmpAbs(maxSafeBig) > 0 {
			return dst, Errorf(ReasonCanonIntegerOverflow, "integer %s exceeds 2^53-1", abbreviate(v.Big.String()))
		}
		return v.Big.Append(dst, 10), nil
	}
	if v.Int > maxSafeInt || v.Int < -maxSafeInt {
		return dst, Errorf(ReasonCanonIntegerOverflow, "integer %d exceeds 2^53-1", v.Int)
	}
	return strconv.AppendInt(dst, v.Int, 10), nil
}

// appendFloatV3 writes f as ECMAScript Number#toString does (SPEC §0.2):
// shortest round-trip digits, -0 as 0, positional notation for decimal
// exponents -7 < x < 21 and d[.ddd]e±x otherwise, with no exponent padding.
func appendFloatV3(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, Errorf(ReasonCanonNonFinite, "float %v is not finite", f)
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	mant, exp := splitExponent(dst[start:])
	if exp >= -6 && exp <= 20 { // 1e-6 <= |f| < 1e21
		return strconv.AppendFloat(dst[:start], f, 'f', -1, 64), nil
	}
	return trimExponent(dst, start, len(mant)), nil
}

// splitExponent splits Go's 'e' format "d.ddde±XX" into the mantissa and the
// decimal exponent.
func splitExponent(s []byte) ([]byte, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == 'e' {
			x, _ := strconv.Atoi(string(s[i+1:]))
			return s[:i], x
		}
	}
	return s, 0
}

// trimExponent rewrites the exponent of the 'e' formatted number at
// dst[start:] from Go's "e+07" padding to ECMAScript's "e+7".
func trimExponent(dst []byte, start, mantLen int) []byte {
	e := start + mantLen // index of 'e'
	sign := e + 1        // '+' or '-'
	j := sign + 1
	for j < len(dst)-1 && dst[j] == '0' {
		j++
	}
	n := copy(dst[sign+1:], dst[j:])
	return dst[:sign+1+n]
}

// appendStringV3 writes s as a JSON string: raw UTF-8, with only '"', '\\'
// and the controls below 0x20 escaped (SPEC §0.2). Text that UTF-8 cannot
// carry (a WTF-8 surrogate or invalid bytes) is refused.
func appendStringV3(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return dst, Errorf(ReasonCanonUnencodableText, "string %q holds a lone surrogate or invalid UTF-8", abbreviate(s))
	}
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[last:i]...)
		dst = appendShortEscape(dst, c)
		last = i + 1
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"'), nil
}

// appendShortEscape writes the escape both canonical forms use for an ASCII
// byte that must be escaped: the two-character form where JSON has one,
// otherwise \u00xx in lowercase hex.
func appendShortEscape(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// abbreviate shortens s for an error message.
func abbreviate(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:60] + "..."
}
