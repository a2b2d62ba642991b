package objects

import "bytes"

// redactAssignments is the third RedactBlob pass: at every ':' or '=' it
// looks back for a label and, when the label names a secret, replaces the
// value after the separator with the marker. A label that is not secret
// only costs a look back to the previous non-label byte, so the scan is
// linear; unlike a regexp match, a non-secret "a=" never swallows the
// "password=x" that follows it. It returns b itself when nothing changes.
func redactAssignments(b []byte) []byte { return redactAssignmentsBy(b, classifyLabel) }

// classifyLabel is classifyName of an assignment label, skipping the
// string building for the labels labelMayBeSecret rules out.
func classifyLabel(label []byte) secrecy {
	if !labelMayBeSecret(label) {
		return notSecret
	}
	return classifyName(string(label))
}

// redactAssignmentsBy is redactAssignments with the label classifier
// given (the tests compare classifyLabel with classifyName).
func redactAssignmentsBy(b []byte, classify func([]byte) secrecy) []byte {
	var out []byte // nil until the first replacement
	done := 0      // b[:done] is settled (copied to out when out != nil)
	seps := sepScan{colon: sepUnknown, eq: sepUnknown}
	for i := 0; i < len(b); i++ {
		if i = seps.next(b, i); i < 0 {
			break
		}
		label, quote := labelBefore(b, i, done)
		if label == nil {
			continue
		}
		sec := classify(label)
		if sec == notSecret {
			continue
		}
		sepEnd := i + 1
		if sepEnd < len(b) && (b[i] == ':' && b[sepEnd] == '=' || b[i] == '=' && b[sepEnd] == '>') {
			sepEnd++ // ":=" and "=>"
		}
		v, ok := valueAfter(b, sepEnd, sec, quote)
		if !ok {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[done:v.start]...)
		out = append(out, v.marker...)
		done = v.end
		i = v.resume - 1
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// sepScan finds the separators ':' and '=' with two vectorised IndexByte
// scans, remembering where the next of each is, instead of testing every
// byte. colon and eq are that index, -1 when none is left, or sepUnknown.
type sepScan struct{ colon, eq int }

// sepUnknown marks a separator not searched for yet.
const sepUnknown = -2

// next returns the index of the first ':' or '=' at or after i, or -1.
// Successive calls must not move i backwards.
func (s *sepScan) next(b []byte, i int) int {
	s.colon = nextByteFrom(b, ':', i, s.colon)
	s.eq = nextByteFrom(b, '=', i, s.eq)
	switch {
	case s.colon < 0:
		return s.eq
	case s.eq < 0:
		return s.colon
	}
	return min(s.colon, s.eq)
}

// nextByteFrom returns the index of the first c at or after i, given prev,
// an earlier answer for a position at or before i: still right when it is
// -1 (none left) or not behind i.
func nextByteFrom(b []byte, c byte, i, prev int) int {
	if prev == -1 || prev >= i {
		return prev
	}
	if k := bytes.IndexByte(b[i:], c); k >= 0 {
		return i + k
	}
	return -1
}

// labelBefore returns the label that ends just before the separator at
// sep: optional blanks, an optional closing quote (possibly escaped, as in
// JSON text inside a JSON string), then a run of label bytes. It looks no
// further back than floor. quote is the label's quoting ("", `"`, `\"` or
// "'"), which an unquoted value's marker copies so JSON text stays JSON.
func labelBefore(b []byte, sep, floor int) (label []byte, quote string) {
	j := sep
	for j > floor && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	if j > floor && (b[j-1] == '"' || b[j-1] == '\'') {
		// Constant strings: converting the byte would allocate for
		// every quoted key of JSON text.
		quote = `"`
		if b[j-1] == '\'' {
			quote = "'"
		}
		j--
		if j > floor && b[j-1] == '\\' {
			quote = `\"` // JSON text inside a JSON string
			if b[j] == '\'' {
				quote = `\'`
			}
			j--
		}
	}
	end := j
	for j > floor && isLabelByte(b[j-1]) {
		j--
	}
	if j == end {
		return nil, ""
	}
	return b[j:end], quote
}

// assignedValue is the span of a secret value and what replaces it.
type assignedValue struct {
	start, end int    // the bytes replaced
	resume     int    // where the scan continues (past a closing quote)
	marker     string // the replacement
}

// valueAfter finds the value that follows a separator ending at p. ok is
// false when there is nothing to scrub: no value on the line, a value that
// already is the marker, a JSON container or literal, or a number after a
// label that only ends in "token".
func valueAfter(b []byte, p int, sec secrecy, labelQuote string) (assignedValue, bool) {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t') {
		p++
	}
	if p >= len(b) || bytes.HasPrefix(b[p:], []byte(Redacted)) {
		return assignedValue{}, false
	}
	if open := openQuote(b[p:]); open != "" {
		return quotedValue(b, p, open, sec)
	}
	switch b[p] {
	case '{', '[':
		return assignedValue{}, false
	}
	start := p
	// An auth scheme word goes with the credential: "Bearer sk-…".
	for _, w := range authSchemes {
		if !hasFoldPrefix(b[p:], w) {
			continue
		}
		q := p + len(w)
		if q < len(b) && (b[q] == ' ' || b[q] == '\t') {
			for q < len(b) && (b[q] == ' ' || b[q] == '\t') {
				q++
			}
			if q < len(b) && !isValueEnd(b[q]) {
				p = q
			}
		}
		break
	}
	end := p
	for end < len(b) && !isValueEnd(b[end]) {
		end++
	}
	if end == start {
		return assignedValue{}, false
	}
	word := b[p:end]
	if p == start && (string(word) == "true" || string(word) == "false" || string(word) == "null") {
		return assignedValue{}, false
	}
	if sec == tokenish && p == start && isNumberText(string(word)) {
		return assignedValue{}, false
	}
	marker := Redacted
	if labelQuote == `"` || labelQuote == `\"` {
		marker = labelQuote + Redacted + labelQuote
	}
	return assignedValue{start: start, end: end, resume: end, marker: marker}, true
}

// openQuote returns the quote that opens a value at the start of b: `"`,
// "'", or the escaped forms `\"` and `\'`; "" when the value is unquoted.
func openQuote(b []byte) string {
	switch {
	case len(b) > 0 && (b[0] == '"' || b[0] == '\''):
		return string(b[:1])
	case len(b) > 1 && b[0] == '\\' && (b[1] == '"' || b[1] == '\''):
		return string(b[:2])
	}
	return ""
}

// quotedValue scrubs the inside of a quoted value that opens at p. The
// value ends at the matching quote or, when the quote is never closed, at
// the end of the line. A backslash escapes the next byte of a plainly
// quoted value, so `"a\"b"` is one value.
func quotedValue(b []byte, p int, open string, sec secrecy) (assignedValue, bool) {
	start := p + len(open)
	end, resume := start, start
	for end < len(b) && b[end] != '\n' && b[end] != '\r' {
		if bytes.HasPrefix(b[end:], []byte(open)) {
			resume = end + len(open)
			break
		}
		if len(open) == 1 && b[end] == '\\' && end+1 < len(b) && b[end+1] != '\n' && b[end+1] != '\r' {
			end++
		}
		end++
	}
	if resume == start {
		resume = end // unterminated: the value runs to the end of the line
	}
	inner := string(b[start:end])
	if inner == "" || inner == Redacted || sec == tokenish && isNumberText(inner) {
		return assignedValue{}, false
	}
	return assignedValue{start: start, end: end, resume: resume, marker: Redacted}, true
}
