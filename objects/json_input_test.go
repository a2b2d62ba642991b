package objects

import (
	"errors"
	"strings"
	"testing"
)

// TestParseInputRefusesUnsafeIntegers pins issue 10 item 5: an integer
// outside ±(2^53-1) in user input is refused with canon.integer-overflow
// naming its JSON path, never rounded to a double or kept as a big.Int.
func TestParseInputRefusesUnsafeIntegers(t *testing.T) {
	cases := []struct{ in, path string }{
		{`9007199254740992`, "$"},
		{`{"attributes":{"n":9007199254740993}}`, "$.attributes.n"},
		{`{"a":[1,-9007199254740992]}`, "$.a[1]"},
		{`{"m":123456789012345678901234567890}`, "$.m"},
		{`[[0,{"odd key":99999999999999999}]]`, `$[0][1]["odd key"]`},
		{`{"big":` + "1" + strings.Repeat("0", 4999) + `}`, "$.big"},
	}
	for _, c := range cases {
		v, err := ParseInput([]byte(c.in), ParseOptions{MaxIntDigits: 4096})
		if err == nil {
			t.Errorf("ParseInput(%.40s) = %v, want canon.integer-overflow", c.in, v)
			continue
		}
		if !HasReason(err, ReasonCanonIntegerOverflow) {
			t.Errorf("ParseInput(%.40s): %v, want canon.integer-overflow", c.in, err)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Kind != ParseIntegerOverflow || pe.Path != c.path {
			t.Errorf("ParseInput(%.40s): %v, want a ParseIntegerOverflow at %s", c.in, err, c.path)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.path+": integer ") || len(msg) > 200 {
			t.Errorf("ParseInput(%.40s) message %q, want %q first, one short line", c.in, msg, c.path+": integer ")
		}
	}
}

// TestParseInputKeepsSafeNumbers: the bound itself, floats of any
// magnitude a double holds, and the other refusals are unchanged.
func TestParseInputKeepsSafeNumbers(t *testing.T) {
	ok := map[string]Value{
		`9007199254740991`:   Int(9007199254740991),
		`-9007199254740991`:  Int(-9007199254740991),
		`1e20`:               Float(1e20),
		`9007199254740993.0`: Float(9007199254740992),
		`0`:                  Int(0),
	}
	for in, want := range ok {
		v, err := ParseInput([]byte(in), ParseOptions{})
		if err != nil || !Equal(v, want) {
			t.Errorf("ParseInput(%s) = %v, %v; want %v", in, v, err, want)
		}
	}
	// A float that truly overflows a double keeps its own reason.
	_, err := ParseInput([]byte(`{"f":1e999}`), ParseOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Kind != ParseNonFinite || pe.Path != "$.f" {
		t.Errorf("ParseInput(1e999) = %v, want ParseNonFinite at $.f", err)
	}
	if !HasReason(err, ReasonCanonNonFinite) {
		t.Errorf("1e999: %v, want canon.non-finite", err)
	}
}

// TestHugeIntegerIsIntegerOverflow pins issue 10 item 9: a 5,000-digit
// integer in a stored body is an integer overflow (canon.integer-overflow),
// not "overflows a double"; a float literal beyond a double stays
// canon.non-finite.
func TestHugeIntegerIsIntegerOverflow(t *testing.T) {
	huge := "1" + strings.Repeat("7", 4999)
	_, err := ParseJSON([]byte(huge), ParseOptions{DemoteBigInts: true})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Kind != ParseIntegerOverflow || strings.Contains(err.Error(), "overflows a double") {
		t.Fatalf("demoting parse of a 5000-digit integer: %v, want ParseIntegerOverflow", err)
	}
	env := func(body string) []byte {
		return []byte(`{"encoding":"json","schema":1,"type":"event"}` + "\n" + body)
	}
	if _, err := DecodeEnvelope(SHA256, env(`{"n":`+huge+`}`)); !HasReason(err, ReasonCanonIntegerOverflow) {
		t.Errorf("body with a 5000-digit integer: %v, want canon.integer-overflow", err)
	}
	if _, err := DecodeEnvelope(SHA256, env(`{"n":1e999}`)); !HasReason(err, ReasonCanonNonFinite) {
		t.Errorf("body with 1e999: %v, want canon.non-finite", err)
	}
}
