package objects

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// maxSafeInt is 2^53-1, the largest integer every JSON reader holds exactly
// (SPEC §0.2).
const maxSafeInt = 1<<53 - 1

// number reads a number literal. SPEC §0.2: the literal decides the type; it
// is an integer iff it has no '.', 'e' or 'E'.
func (p *jsonParser) number() (Value, error) {
	d := p.data
	start := p.pos
	i := start
	if d[i] == '-' {
		i++
		if i < len(d) && d[i] == 'I' {
			p.pos = i
			return p.nonFinite(start, true)
		}
	}
	digitsAt := i
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return Value{}, p.failAt(ParseSyntax, i, "want a digit")
	}
	digits := i - digitsAt
	isFloat := false
	if i < len(d) && d[i] == '.' {
		isFloat = true
		if i++; i >= len(d) || d[i] < '0' || d[i] > '9' {
			return Value{}, p.failAt(ParseSyntax, i, "want a digit after '.'")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isFloat = true
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return Value{}, p.failAt(ParseSyntax, i, "want a digit in the exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	p.pos = i
	lit := p.src[start:i]
	if isFloat {
		return p.float(lit, start)
	}
	// SPEC §0.2 rule 7: the range is decided on the literal's digits, so a
	// 5,000-digit integer is refused as an integer, without converting it.
	if p.opt.RefuseUnsafeInts && unsafeIntLiteral(lit[len(lit)-digits:]) {
		return Value{}, p.failAt(ParseIntegerOverflow, start,
			fmt.Sprintf("integer %s is outside ±(2^53-1) = ±%d; write it as a string, or as a float such as 1e20", abbreviate(lit), int64(maxSafeInt)))
	}
	// SPEC §3.1: the digit bound is checked before any conversion allocates.
	if p.opt.MaxIntDigits > 0 && digits > p.opt.MaxIntDigits {
		return Value{}, p.failAt(ParseTooManyDigits, start,
			fmt.Sprintf("integer literal has %d digits, more than %d", digits, p.opt.MaxIntDigits))
	}
	return p.integer(lit, start, digits)
}

// integer converts a validated integer literal with the given digit count.
func (p *jsonParser) integer(lit string, start, digits int) (Value, error) {
	neg := lit[0] == '-'
	if digits <= 18 { // always fits an int64: no overflow checks needed
		var n int64
		for _, c := range []byte(lit[len(lit)-digits:]) {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		if p.opt.DemoteBigInts && (n > maxSafeInt || n < -maxSafeInt) {
			return p.demote(lit, start, digits)
		}
		return Value{Kind: KindInt, Int: n}, nil
	}
	// SPEC §0.2 demotion: a body integer beyond 2^53-1 is read as the double
	// the literal names, never kept as an exact integer.
	if p.opt.DemoteBigInts {
		return p.demote(lit, start, digits)
	}
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return Value{Kind: KindInt, Int: n}, nil
	}
	b, ok := new(big.Int).SetString(lit, 10)
	if !ok {
		return Value{}, p.failAt(ParseSyntax, start, "invalid integer literal")
	}
	return Value{Kind: KindInt, Big: b}, nil
}

// demote reads an integer literal beyond 2^53-1 as the double it names
// (SPEC §0.2 demotion). An integer too long for any double is an integer
// overflow, not a non-finite float: the literal was an integer.
func (p *jsonParser) demote(lit string, start, digits int) (Value, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Value{}, p.failAt(ParseSyntax, start, "invalid integer literal")
	}
	if math.IsInf(f, 0) {
		return Value{}, p.failAt(ParseIntegerOverflow, start,
			fmt.Sprintf("integer literal of %d digits is too large for any number (beyond a double's range)", digits))
	}
	return Value{Kind: KindFloat, Float: f}, nil
}

// unsafeIntLiteral reports whether the digits of an integer literal (no
// sign, no leading zero but for "0" itself) name a magnitude above 2^53-1.
func unsafeIntLiteral(digits string) bool {
	const maxSafe = "9007199254740991"
	return len(digits) > len(maxSafe) || (len(digits) == len(maxSafe) && digits > maxSafe)
}

// float converts a validated number literal to a float64. A literal whose
// magnitude overflows to ±Inf is non-finite, like the NaN/Infinity tokens.
func (p *jsonParser) float(lit string, start int) (Value, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Value{}, p.failAt(ParseSyntax, start, "invalid number literal")
	}
	if math.IsInf(f, 0) && !p.opt.AllowNonFinite {
		return Value{}, p.failAt(ParseNonFinite, start, "number literal overflows a double")
	}
	return Value{Kind: KindFloat, Float: f}, nil
}

// nonFinite reads the NaN, Infinity and -Infinity tokens that Python's json
// module writes. They are recognised so the caller can report a non-finite
// number rather than malformed JSON (SPEC §3.7).
func (p *jsonParser) nonFinite(start int, neg bool) (Value, error) {
	word, f := "NaN", math.NaN()
	if p.data[p.pos] == 'I' {
		word, f = "Infinity", math.Inf(1)
		if neg {
			f = math.Inf(-1)
		}
	}
	if _, err := p.literal(word, Value{}); err != nil {
		return Value{}, err
	}
	if !p.opt.AllowNonFinite {
		return Value{}, p.failAt(ParseNonFinite, start, "non-finite number literal "+p.src[start:p.pos])
	}
	return Value{Kind: KindFloat, Float: f}, nil
}
