package loop

import (
	"math"
	"strconv"
	"strings"
)

// formatFloat spells f the way Python's repr does (loopforge.md §1.3 and §3.4:
// reasons and summaries print floats with str()): the shortest digits that
// round-trip, always a ".0" on integral values, exponent form below 1e-4 or
// from 1e16 with at least two exponent digits ("1e-05", "1e+16"), "-0.0",
// "inf", "-inf" and "nan".
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	// "d.ddde±x": the shortest round-trip digits and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		out := digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		es := strconv.Itoa(abs(exp))
		if len(es) < 2 {
			es = "0" + es
		}
		if exp < 0 {
			return sign + out + "e-" + es
		}
		return sign + out + "e+" + es
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
