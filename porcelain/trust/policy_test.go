package trust

import (
	"errors"
	"strings"
	"testing"
)

const polFP = "1111111111111111111111111111111111111111111111111111111111111111"

func TestParsePolicyValid(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"version":1,
 "keys":{"ci":{"algorithm":"ed25519","fingerprint":"` + polFP + `","public_key_file":"keys/ci.pub"},
         "h":{"algorithm":"hmac-sha256","fingerprint":"` + polFP + `"}},
 "promotions":{"prod/eu":{"trusted_keys":["ci","h"],"signers":["ci"],"unsigned_signers":["dev"],
   "scores":{"accuracy":{"min":0.9},"latency":{"max":200},"x":{"min":1,"max":1}},
   "gates":[{"contract":"` + polFP + `"},{"contract_name":"ci","phase":"ci","allow_waived":true}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Rules["prod/eu"]
	if r == nil || len(r.TrustedKeys) != 2 || r.TrustedKeys[0].PublicKeyFile != "keys/ci.pub" || len(r.Scores) != 3 || len(r.Gates) != 2 {
		t.Fatalf("rule = %+v", r)
	}
	if r.Gates[0].AllowWaived || !r.Gates[1].AllowWaived {
		t.Fatalf("allow_waived: %+v", r.Gates)
	}
	if *r.Scores[0].Min != 0.9 || r.Scores[1].Max == nil || r.Scores[1].Min != nil || r.Gates[1].Phase != "ci" {
		t.Fatalf("requirements = %+v %+v", r.Scores, r.Gates)
	}
}

func TestParsePolicyRefusals(t *testing.T) {
	okRule := `"scores":{"a":{"min":1}},"unsigned_signers":["dev"]`
	cases := []struct{ text, want string }{
		{`{"version":1,"promotions":{},"promotions":{}}`, "line 1 column"},
		{`[]`, "$: must be an object"},
		{`{"version":2,"promotions":{}}`, "$.version: must be 1"},
		{`{"version":1}`, "$.promotions: is required"},
		{`{"version":1,"extra":1,"promotions":{}}`, "$.extra: unknown key"},
		{`{"version":1,"promotions":{"p":{` + okRule + `,"force":true}}}`, "$.promotions.p.force: unknown key"},
		{`{"version":1,"promotions":{"P":{` + okRule + `}}}`, "$.promotions.P: not a valid promotion name"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"]}}}`, "names no requirement"},
		{`{"version":1,"promotions":{"p":{"scores":{"a":{"min":1}}}}}`, "trusts no key and allows no unsigned signer"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"scores":{"a":{}}}}}`, "names neither min nor max"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"scores":{"a":{"min":2,"max":1}}}}}`, "min is above max"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"scores":{"a":{"min":"1"}}}}}`, "$.promotions.p.scores.a.min: must be a number"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"gates":[{"phase":"ci"}]}}}`, "names neither contract nor contract_name"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"gates":[{"contract":"ABC"}]}}}`, "64 lowercase hex"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"gates":[{"contract_name":"ci","allow_waived":"yes"}]}}}`, "$.promotions.p.gates[0].allow_waived: must be true or false"},
		{`{"version":1,"promotions":{"p":{"trusted_keys":["nope"],"scores":{"a":{"min":1}}}}}`, "names no key of $.keys"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev","dev"],"scores":{"a":{"min":1}}}}}`, "listed once"},
		{`{"version":1,"keys":{"k":{"algorithm":"rsa","fingerprint":"` + polFP + `"}},"promotions":{}}`, "$.keys.k.algorithm: must be"},
		{`{"version":1,"keys":{"k":{"algorithm":"ed25519","fingerprint":"` + polFP + `","public_key_file":"../k.pub"}},"promotions":{}}`, "public key file, a path inside"},
		{`{"version":1,"keys":{"k":{"algorithm":"hmac-sha256","fingerprint":"` + polFP + `","public_key_file":"k"}},"promotions":{}}`, "no public half"},
		{`{"version":1,"keys":{"k":{"algorithm":"hmac-sha256","fingerprint":"abc"}},"promotions":{}}`, "$.keys.k.fingerprint"},
		{`{"version":1,"promotions":{"p":{"unsigned_signers":["dev"],"scores":{"a":{"min":1e999}}}}}`, "line 1"},
	}
	for _, c := range cases {
		_, err := ParsePolicy([]byte(c.text))
		if err == nil || !errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.text, err, c.want)
		}
	}
}

func TestParseScore(t *testing.T) {
	for _, ok := range []string{"a=1", "a.b/c-d_e=-0.5", "x=1e3", "x=0"} {
		if _, err := ParseScore(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"a", "=1", "a=", "a=NaN", "a=Inf", "a=-inf", "a=1e999", "a=0x10", "a=+1", "a=1_0", "-a=1", "a b=1", strings.Repeat("a", 129) + "=1"} {
		if _, err := ParseScore(bad); !errors.Is(err, ErrBadScore) {
			t.Errorf("%s: got %v, want ErrBadScore", bad, err)
		}
	}
	if s, _ := ParseScore("n=3"); s.value().Kind.String() != "int" {
		t.Error("an integer literal was not kept as an integer")
	}
}

// TestScoreKeepsItsDecimal: a score is what was given or refused. A
// decimal the stored double spells as another number (more than 17
// significant digits, or beneath the smallest double) is refused with the
// value it would have been stored as; every spelling of a number the
// double holds passes. Before, 0.1000000000000000055511151231257827 was
// stored as 0.1 without a word.
func TestScoreKeepsItsDecimal(t *testing.T) {
	for _, ok := range []string{"0.1", "0.30000000000000004", "123.4560000", "1.5e300", "1E+2", "-0", "0e99999999999", "9007199254740991", "5e-324", "-2.5e-3"} {
		if _, err := NewScore("s", ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for bad, storedAs := range map[string]string{
		"0.1000000000000000055511151231257827": "0.1",
		"1.00000000000000001":                  "1",
		"123456789012345678901e0":              "1.2345678901234568e+20",
		"1e-400":                               "0",
		"1e-99999999999999999999":              "0",
	} {
		_, err := NewScore("s", bad)
		if !errors.Is(err, ErrBadScore) || !strings.Contains(err.Error(), "would be stored as "+storedAs+";") {
			t.Errorf("%s: got %v, want a refusal naming %s", bad, err, storedAs)
		}
	}
}
