package objects

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ValidateText checks that a JSON document holds only Unicode scalar values:
// no string or key may carry an unpaired UTF-16 surrogate, whether spelled as
// an escape ("\ud800" with no low half after it, or a bare "\udc00") or as the
// raw CESU-8/WTF-8 bytes ED A0..BF xx. It is the conformance op text.validate.
//
// SPEC §0.1: the check lives at the format boundary. A lone surrogate yields a
// *FormatError with reason text.lone-surrogate. Input that is not JSON at all
// (or nests deeper than MaxJSONDepth) is refused with the wrapped *ParseError
// and no reason, since that is a grammar fault rather than a text fault.
// Number semantics are no concern of this check, so NaN, Infinity and
// integers of any size are let through.
func ValidateText(data []byte) error {
	_, err := ParseJSON(data, ParseOptions{AllowNonFinite: true})
	if err == nil {
		return nil
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Kind == ParseLoneSurrogate {
		return &FormatError{Reason: ReasonTextLoneSurrogate, Detail: pe.Error()}
	}
	return fmt.Errorf("text validity: %w", err)
}

// decodeWTF8 measures the multi-byte sequence at the start of b (b[0] >=
// 0x80). It returns the sequence length and whether it encodes a surrogate
// code point (ED A0..BF 80..BF, the CESU-8/WTF-8 spelling that strict UTF-8
// forbids). A size of 0 means the bytes are not UTF-8 even in the WTF-8
// sense: overlong forms, stray continuation bytes, truncation, or values
// beyond U+10FFFF.
func decodeWTF8(b []byte) (size int, surrogate bool) {
	r, n := utf8.DecodeRune(b)
	if r != utf8.RuneError || n > 1 {
		return n, false
	}
	if len(b) >= 3 && b[0] == 0xED && b[1] >= 0xA0 && b[1] <= 0xBF && b[2] >= 0x80 && b[2] <= 0xBF {
		return 3, true
	}
	return 0, false
}

// decodeWTF8String is decodeWTF8 for a string that starts at a byte >= 0x80;
// it also returns the code point (a surrogate value for a WTF-8 surrogate).
func decodeWTF8String(s string) (r rune, size int) {
	r, n := utf8.DecodeRuneInString(s)
	if r != utf8.RuneError || n > 1 {
		return r, n
	}
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2] >= 0x80 && s[2] <= 0xBF {
		return rune(s[0]&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	return utf8.RuneError, 0
}

// appendWTF8 appends the generalized UTF-8 encoding of r. Unlike
// utf8.AppendRune it keeps a surrogate code point as its three bytes instead
// of replacing it with U+FFFD, which SPEC §0.1 forbids as a silent repair.
func appendWTF8(dst []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return utf8.AppendRune(dst, r)
}

// isSurrogate reports whether r is a UTF-16 surrogate code point.
func isSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDFFF }

// str reads a string literal starting at the opening quote. The fast path
// covers literals without escapes, which are returned as one copy of the
// input bytes; an escape switches to strEscaped and the reusable buffer.
func (p *jsonParser) str() (string, error) {
	d := p.data
	start := p.pos + 1
	for i := start; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.src[start:i], nil
		case c == '\\':
			return p.strEscaped(start, i)
		case c < 0x20:
			return "", p.failAt(ParseSyntax, i, fmt.Sprintf("raw control byte 0x%02x in a string", c))
		case c < 0x80:
			i++
		default:
			n, err := p.multiByte(i)
			if err != nil {
				return "", err
			}
			i += n
		}
	}
	return "", p.failAt(ParseSyntax, len(d), "unterminated string")
}

// multiByte validates the UTF-8 sequence at d[i] and returns its length.
// SPEC §0.1: the raw CESU-8 spelling of a surrogate is refused unless the
// caller asked to carry surrogates through.
func (p *jsonParser) multiByte(i int) (int, error) {
	n, surrogate := decodeWTF8(p.data[i:])
	if n == 0 {
		return 0, p.failAt(ParseSyntax, i, "invalid UTF-8 in a string")
	}
	if surrogate && !p.opt.AllowLoneSurrogates {
		return 0, p.failAt(ParseLoneSurrogate, i, "raw surrogate bytes (CESU-8) in a string")
	}
	return n, nil
}

// strEscaped finishes a string literal that holds an escape at d[i], whose
// contents began at d[start].
func (p *jsonParser) strEscaped(start, i int) (string, error) {
	d := p.data
	buf := append(p.buf[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = buf
			return string(buf), nil
		case c == '\\':
			var err error
			buf, i, err = p.escape(buf, i)
			if err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.failAt(ParseSyntax, i, fmt.Sprintf("raw control byte 0x%02x in a string", c))
		case c < 0x80:
			buf = append(buf, c)
			i++
		default:
			n, err := p.multiByte(i)
			if err != nil {
				return "", err
			}
			buf = append(buf, d[i:i+n]...)
			i += n
		}
	}
	p.buf = buf
	return "", p.failAt(ParseSyntax, len(d), "unterminated string")
}

// escape decodes the escape at d[i] (a backslash) onto buf and returns the
// index after it. An escaped high surrogate pairs only with an immediately
// following escaped low surrogate, as Python's json module pairs them.
func (p *jsonParser) escape(buf []byte, i int) ([]byte, int, error) {
	d := p.data
	if i+1 >= len(d) {
		return buf, i, p.failAt(ParseSyntax, i, "unterminated escape")
	}
	switch d[i+1] {
	case '"', '\\', '/':
		return append(buf, d[i+1]), i + 2, nil
	case 'b':
		return append(buf, '\b'), i + 2, nil
	case 'f':
		return append(buf, '\f'), i + 2, nil
	case 'n':
		return append(buf, '\n'), i + 2, nil
	case 'r':
		return append(buf, '\r'), i + 2, nil
	case 't':
		return append(buf, '\t'), i + 2, nil
	case 'u':
	default:
		return buf, i, p.failAt(ParseSyntax, i, fmt.Sprintf("invalid escape \\%c", d[i+1]))
	}
	r, ok := hex4(d, i+2)
	if !ok {
		return buf, i, p.failAt(ParseSyntax, i, "invalid \\u escape")
	}
	next := i + 6
	if r >= 0xD800 && r <= 0xDBFF && next+1 < len(d) && d[next] == '\\' && d[next+1] == 'u' {
		if lo, ok := hex4(d, next+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return utf8AppendPair(buf, r, lo), next + 6, nil
		}
	}
	if isSurrogate(r) && !p.opt.AllowLoneSurrogates {
		return buf, i, p.failAt(ParseLoneSurrogate, i, fmt.Sprintf("unpaired surrogate escape \\u%04x", r))
	}
	return appendWTF8(buf, r), next, nil
}

// utf8AppendPair appends the supplementary character a surrogate pair spells.
func utf8AppendPair(buf []byte, hi, lo rune) []byte {
	return utf8.AppendRune(buf, 0x10000+(hi-0xD800)<<10+(lo-0xDC00))
}

// hex4 decodes four hex digits at d[i:i+4].
func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
