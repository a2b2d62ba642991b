package objects

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Metric bounds (SPEC §1.5.2, §1.6).
const (
	// MaxMeterChars bounds a numeric-string meter, counted in characters.
	MaxMeterChars = 128
	// MaxTokenCount bounds a token dimension of usage: 2^53-1.
	MaxTokenCount = 1<<53 - 1
)

// tokenDimensions are the usage keys that count tokens and must be exact
// safe integers (SPEC §1.5.2).
var tokenDimensions = map[string]bool{
	"input": true, "output": true, "cache_read": true, "cache_write_5m": true,
	"cache_write_1h": true, "reasoning": true, "total": true,
}

// CheckMetrics applies the event metrics rules of SPEC §1.5.2 (op
// event.metrics) to an event payload:
//   - cost and duration are absent or finite and >= 0; time_unix, when
//     present, is finite and may be negative. These meters may be numeric
//     strings of up to MaxMeterChars characters, read as a Python Decimal,
//     which must also convert to a finite float64;
//   - usage, read as `payload.get("usage") or {}`, is an object whose values
//     are JSON numbers (not bools or strings), finite and >= 0; the token
//     dimensions are also integral and at most 2^53-1.
//
// Every failure carries a metrics.* reason; a negative meter is
// metrics.meter-not-finite, as SPEC has no separate code for it.
func CheckMetrics(event Value) error {
	if event.Kind != KindObject {
		return Errorf(ReasonMetricsMeterNotFinite, "event payload is a JSON %s, not an object", event.Kind)
	}
	for _, field := range [...]string{"cost", "duration"} {
		if v, ok := event.Get(field); ok {
			if err := checkMeter(field, v, true); err != nil {
				return err
			}
		}
	}
	if v, ok := event.Get("time_unix"); ok {
		if err := checkMeter("time_unix", v, false); err != nil {
			return err
		}
	}
	usage, ok := event.Get("usage")
	if !ok || !usage.Truthy() {
		return nil
	}
	if usage.Kind != KindObject {
		return Errorf(ReasonMetricsUsageNotObject, "usage is a JSON %s, not an object", usage.Kind)
	}
	for _, m := range usage.Object {
		name := "usage." + m.Key
		if !m.Value.IsNumber() {
			return Errorf(ReasonMetricsUsageValueNotNumeric, "%s is a JSON %s, not a number", name, m.Value.Kind)
		}
		if err := checkMeter(name, m.Value, true); err != nil {
			return err
		}
		if tokenDimensions[m.Key] && !safeTokenCount(m.Value) {
			return Errorf(ReasonMetricsTokenDimensionUnsafe, "%s is not an integer in 0..2^53-1", name)
		}
	}
	return nil
}

// checkMeter mirrors the reference's Decimal(str(value)) test: a bool, null,
// list or object is never a meter; a number or numeric string must be finite
// (also as a float64) and, when nonNegative, not below zero.
func checkMeter(name string, v Value, nonNegative bool) error {
	var f float64
	var neg bool
	switch v.Kind {
	case KindInt:
		if v.Big != nil {
			f, _ = new(big.Float).SetInt(v.Big).Float64()
		} else {
			f = float64(v.Int)
		}
	case KindFloat:
		f = v.Float
	case KindString:
		if utf8.RuneCountInString(v.Str) > MaxMeterChars {
			return Errorf(ReasonMetricsMeterTooLong, "%s is a numeric string over %d characters", name, MaxMeterChars)
		}
		var ok bool
		if f, neg, ok = parseDecimalMeter(v.Str); !ok {
			return Errorf(ReasonMetricsMeterNotFinite, "%s %.40q is not a finite decimal number", name, v.Str)
		}
	default:
		return Errorf(ReasonMetricsMeterNotFinite, "%s is a JSON %s, not a number", name, v.Kind)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return Errorf(ReasonMetricsMeterNotFinite, "%s is not finite as a float64", name)
	}
	if nonNegative && (f < 0 || neg) {
		return Errorf(ReasonMetricsMeterNotFinite, "%s is negative", name)
	}
	return nil
}

// safeTokenCount reports whether a non-negative number is integral and at
// most MaxTokenCount.
func safeTokenCount(v Value) bool {
	switch v.Kind {
	case KindInt:
		return v.Big == nil && v.Int <= MaxTokenCount
	case KindFloat:
		return v.Float == math.Trunc(v.Float) && v.Float <= MaxTokenCount
	}
	return false
}

// Bounds of the reference's Decimal constructor (libmpdec on 64-bit): the
// exponent of the last coefficient digit may not fall below decimalMinExp,
// and that of the first may not exceed decimalMaxExp. Strings outside them
// are not decimals at all.
const (
	decimalMinExp = -1999999999999999997
	decimalMaxExp = 999999999999999999
)

// parseDecimalMeter reads s as Python's Decimal(s) does and reports its
// float64 value, whether it is below zero, and whether it is a finite
// decimal. Python strips surrounding whitespace, ignores underscores and
// reads any Unicode decimal digit; infinities and NaNs are not finite.
func parseDecimalMeter(s string) (f float64, neg, ok bool) {
	s = strings.TrimFunc(s, isPySpace)
	ascii := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r == '_':
			continue
		case r > 0 && r < utf8.RuneSelf:
			ascii = append(ascii, byte(r))
		case unicode.Is(unicode.Nd, r):
			ascii = append(ascii, '0'+byte(digitValue(r)))
		default:
			return 0, false, false
		}
	}
	i := 0
	if i < len(ascii) && (ascii[i] == '+' || ascii[i] == '-') {
		neg = ascii[i] == '-'
		i++
	}
	intStart := i
	for i < len(ascii) && isDigit(ascii[i]) {
		i++
	}
	intDigits := ascii[intStart:i]
	var fracDigits []byte
	if i < len(ascii) && ascii[i] == '.' {
		i++
		fracStart := i
		for i < len(ascii) && isDigit(ascii[i]) {
			i++
		}
		fracDigits = ascii[fracStart:i]
	}
	if len(intDigits)+len(fracDigits) == 0 {
		return 0, false, false
	}
	var exp int64
	if i < len(ascii) && (ascii[i] == 'e' || ascii[i] == 'E') {
		i++
		expNeg := false
		if i < len(ascii) && (ascii[i] == '+' || ascii[i] == '-') {
			expNeg = ascii[i] == '-'
			i++
		}
		start := i
		for i < len(ascii) && isDigit(ascii[i]) {
			// Saturate: any exponent past 4e18 is out of range anyway, and
			// leading zeros ("e0000001") are allowed.
			if exp < 4e18 {
				exp = exp*10 + int64(ascii[i]-'0')
			}
			i++
		}
		if i == start {
			return 0, false, false
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(ascii) {
		return 0, false, false
	}
	// Position the exponent at the last digit, then at the first nonzero
	// digit, to apply libmpdec's range.
	last := exp - int64(len(fracDigits))
	sig := len(strings.TrimLeft(string(intDigits)+string(fracDigits), "0"))
	if sig == 0 {
		sig = 1
		neg = false // -0 is not below zero
	}
	if last < decimalMinExp || last+int64(sig)-1 > decimalMaxExp {
		return 0, false, false
	}
	f, err := strconv.ParseFloat(string(ascii), 64)
	if err != nil && !math.IsInf(f, 0) {
		// ParseFloat reports only range errors on this grammar; underflow
		// to zero is a finite result, as float() of such a Decimal is.
		if ne, isNum := err.(*strconv.NumError); !isNum || ne.Err != strconv.ErrRange {
			return 0, false, false
		}
	}
	return f, neg, true
}

// isPySpace reports whether Python's str.isspace treats r as whitespace: the
// Unicode White_Space set plus the ASCII separators 0x1C..0x1F.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitValue returns the value of a Unicode decimal digit. Unicode encodes
// every decimal digit set as a contiguous run starting at its zero, so the
// value is the distance from the start of the run, modulo ten.
func digitValue(r rune) int {
	start := r
	for start > 0 && unicode.Is(unicode.Nd, start-1) && r-start < 1000 {
		start--
	}
	return int(r-start) % 10
}
