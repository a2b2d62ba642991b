package objects

import (
	"math/big"
	"strings"
	"unicode"
)

// Python renderings of parsed JSON values. The reference reader builds some
// verdict strings with str() and repr() of whatever the document held (an
// unsupported algorithm, a bad format_version), so reproducing them exactly
// needs Python's spelling of each JSON type.

// pyStr renders v as Python's str() of the value json.loads produced.
func pyStr(v Value) string {
	if v.Kind == KindString {
		return v.Str
	}
	return pyRepr(v)
}

// pyRepr renders v as Python's repr() of the value json.loads produced:
// None, True/False, integers in full, floats as repr, quoted strings, and
// lists and dicts with ", " and ": " separators.
func pyRepr(v Value) string {
	var b strings.Builder
	writePyRepr(&b, v, 0)
	return b.String()
}

// maxReprDepth cuts a hostile nesting short; the parse already bounds
// depth at 512, so this only guards direct callers.
const maxReprDepth = 600

func writePyRepr(b *strings.Builder, v Value, depth int) {
	if depth > maxReprDepth {
		b.WriteString("...")
		return
	}
	switch v.Kind {
	case KindNull:
		b.WriteString("None")
	case KindBool:
		if v.Bool {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case KindInt:
		if v.Big != nil {
			b.WriteString(v.Big.String())
		} else {
			b.WriteString(big.NewInt(v.Int).String())
		}
	case KindFloat:
		out, err := appendFloatV2(nil, v.Float)
		if err != nil {
			out = []byte("nan")
		}
		b.Write(out)
	case KindString:
		writePyStringRepr(b, v.Str)
	case KindArray:
		b.WriteByte('[')
		for i := range v.Array {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyRepr(b, v.Array[i], depth+1)
		}
		b.WriteByte(']')
	case KindObject:
		b.WriteByte('{')
		for i := range v.Object {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyStringRepr(b, v.Object[i].Key)
			b.WriteString(": ")
			writePyRepr(b, v.Object[i].Value, depth+1)
		}
		b.WriteByte('}')
	}
}

// writePyStringRepr writes s quoted as Python's repr() does: single quotes
// unless s holds a single quote and no double quote; backslash, the quote,
// tab, newline and carriage return escaped; other non-printable characters
// (a WTF-8 lone surrogate included) as \xNN, \uNNNN or \UNNNNNNNN.
func writePyStringRepr(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	const hex = "0123456789abcdef"
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, n := decodeWTF8String(s[i:])
		if n == 0 { // not even WTF-8: Python could not have held it; show the byte
			r, n = rune(s[i]), 1
		}
		i += n
		switch {
		case r == '\\' || r == rune(quote):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case !isSurrogate(r) && unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xF])
		case r < 0x10000:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xF])
			}
		default:
			b.WriteString(`\U`)
			for shift := 28; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xF])
			}
		}
	}
	b.WriteByte(quote)
}
