package objects

import (
	"strings"
	"testing"
)

// jtRepeat assembles the suite's "repeat" generator input.
func jtRepeat(prefix, unit string, count int, suffix string) []byte {
	return []byte(prefix + strings.Repeat(unit, count) + suffix)
}

// jtNestBytes assembles the suite's "nest" generator input.
func jtNestBytes(open, inner, close string, depth int) []byte {
	return []byte(strings.Repeat(open, depth) + inner + strings.Repeat(close, depth))
}

// TestScanShapeVectors transcribes 05-shape and the token-budget halves of
// 16-bounds. A zero budget stands for "no max_tokens argument".
func TestScanShapeVectors(t *testing.T) {
	const cfgPrefix = `{"format":3,"object_hash":"sha256","pad":[`
	const cfgSuffix = `[]],"repository":"opentine","version":1}`
	cases := []struct {
		id     string
		in     []byte
		budget int
		reason Reason
	}{
		{"shape.depth.at-512", jtNestBytes("[", "0", "]", 512), 0, ""},
		{"shape.depth.at-512-objects", jtNestBytes("{", "", "}", 512), 0, ""},
		{"shape.depth.at-513", jtNestBytes("[", "0", "]", 513), 0, ReasonShapeDepthExceeded},
		{"shape.depth.at-513-objects", jtNestBytes("{", "", "}", 513), 0, ReasonShapeDepthExceeded},
		{"shape.depth.mixed-containers", jtNestBytes("[", "0", "]", 600), 0, ReasonShapeDepthExceeded},
		{"shape.negative-depth-tolerated", []byte("}]}]"), 0, ""},
		{"shape.string.brackets-ignored", []byte(`{"k":"[[[[[[[[[["}`), 4, ""},
		{"shape.string.escaped-quote", []byte(`{"k":"\"[[[["}`), 4, ""},
		{"shape.tokens.at-budget", []byte("[[[[]]]]"), 8, ""},
		{"shape.tokens.config-budget", jtRepeat("[", "[],", 4000, "[]]"), 10000, ReasonShapeTokensExceeded},
		{"shape.tokens.minimal-budget", []byte("{}"), 1, ReasonShapeTokensExceeded},
		{"shape.tokens.one-over-budget", []byte("[[[[]]]]"), 7, ReasonShapeTokensExceeded},
		{"bounds.envelope-body.tokens-over-200000", jtRepeat("[", "[],", 66666, "[]]"), MaxBodyTokens, ReasonShapeTokensExceeded},
		{"bounds.envelope-body.tokens-under-200000", jtRepeat("[", "[],", 66665, "[]]"), MaxBodyTokens, ""},
		{"bounds.config.tokens-over-budget", jtRepeat(cfgPrefix, "[],", 3400, cfgSuffix), 10000, ReasonShapeTokensExceeded},
		{"bounds.config.tokens-under-budget", jtRepeat(cfgPrefix, "[],", 3000, cfgSuffix), 10000, ""},
		{"escaped-backslash-ends-string", []byte(`["\\",[`), 2, ReasonShapeTokensExceeded},
		{"escaped-backslash-then-quote", []byte(`["\\\"[[[[",1]`), 3, ""},
		{"unterminated-string-skips-rest", []byte(`["[[[[[[`), 1, ""},
		{"default-budget-is-body-budget", jtRepeat("[", "[],", 66666, "[]]"), 0, ReasonShapeTokensExceeded},
		{"depth-recovers-after-close", []byte(strings.Repeat("[]", 2000)), 4000, ""},
	}
	for _, c := range cases {
		err := ScanShape(c.in, c.budget)
		if c.reason == "" {
			if err != nil {
				t.Errorf("%s: %v", c.id, err)
			}
			continue
		}
		if !HasReason(err, c.reason) {
			t.Errorf("%s: got %v, want %s", c.id, err, c.reason)
		}
	}
}

// TestScanShapeBalancedIsBounded checks that depth is the running depth, not
// the total of openers: many shallow siblings never trip the depth rule.
func TestScanShapeBalancedIsBounded(t *testing.T) {
	in := []byte(strings.Repeat("[[]]", 1000))
	if err := ScanShape(in, 4000); err != nil {
		t.Fatal(err)
	}
	if err := ScanShape(in, 3999); !HasReason(err, ReasonShapeTokensExceeded) {
		t.Fatalf("3999-token budget: %v", err)
	}
}
