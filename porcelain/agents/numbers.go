package agents

import (
	"strconv"
	"strings"
)

// numClass says what exactInteger found.
type numClass int

const (
	// numInteger is an integer whose magnitude fits a uint64.
	numInteger numClass = iota
	// numHuge is an integer of magnitude 2^64 or more.
	numHuge
	// numFraction is not an integer.
	numFraction
)

// exactInteger reads the JSON number text num (the decoder checked its
// grammar: -?int(.frac)?([eE][+-]?exp)?) exactly, without a float: the
// magnitude n when it is an integer below 2^64, whether it is negative
// (-0 is not), and its class. The work is bounded by the text's length,
// whatever the exponent (1e999999999 is refused, not expanded).
func exactInteger(num string) (n uint64, neg bool, c numClass) {
	neg = strings.HasPrefix(num, "-")
	num = strings.TrimPrefix(num, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(num), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, false, numInteger // zero, however spelt
	}
	// The value is digits * 10^shift.
	trimmed := strings.TrimRight(digits, "0")
	shift := int64(len(digits)-len(trimmed)) - int64(len(frac))
	digits = trimmed
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 64)
		if err != nil {
			// An exponent beyond int64: a nonzero value that huge is too
			// large, and one that tiny is a fraction.
			if strings.HasPrefix(exp, "-") {
				return 0, neg, numFraction
			}
			return 0, neg, numHuge
		}
		if e > 1<<40 || e < -(1<<40) {
			if e < 0 {
				return 0, neg, numFraction
			}
			return 0, neg, numHuge
		}
		shift += e
	}
	if shift < 0 {
		return 0, neg, numFraction // digits ends in a nonzero digit
	}
	if int64(len(digits))+shift > 20 {
		return 0, neg, numHuge // 21 digits or more: over 2^64
	}
	n, err := strconv.ParseUint(digits+strings.Repeat("0", int(shift)), 10, 64)
	if err != nil {
		return 0, neg, numHuge
	}
	return n, neg, numInteger
}
