package wire

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// TestTransportError: an error whose text passes CheckReplyText is kept as
// it is; any other is shown within MaxRefusalMessage bytes (and a note of
// what was left out), its control and format characters and invalid
// UTF-8 escaped, still matching what it wraps.
func TestTransportError(t *testing.T) {
	if TransportError(nil) != nil {
		t.Fatal("nil is not nil")
	}
	clean := fmt.Errorf("dial tcp 127.0.0.1:1: connect: connection refused")
	if got := TransportError(clean); got != clean {
		t.Fatalf("clean error became %v", got)
	}
	cause := errors.New("cause")
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"escapes", "bad line \x1b]2;owned\x07\x1b[31m\u202e\u2028\xff\ntail",
			[]string{`bad line \x1b]2;owned\x07\x1b[31m\u202e\u2028\xff\x0atail`}},
		{"huge", "malformed: " + strings.Repeat("A", 10000),
			// 11 + 10000 + len(": cause") bytes, MaxRefusalMessage shown.
			[]string{"malformed: AAA", fmt.Sprintf("A... (%d more bytes not shown)", 11+10000+7-MaxRefusalMessage)}},
		{"huge escapes", strings.Repeat("\x1b", 5000), []string{`\x1b\x1b`, "more bytes not shown"}},
		{"tag character", "x\U000e0001y", []string{`x\U000e0001y`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := TransportError(fmt.Errorf("%s: %w", tc.text, cause))
			msg := err.Error()
			if len(msg) > MaxRefusalMessage+len("... (NNNNNNN more bytes not shown)") {
				t.Errorf("%d bytes: %.200q", len(msg), msg)
			}
			for _, r := range msg {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || r == unicode.ReplacementChar {
					t.Errorf("holds %U: %.200q", r, msg)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%.200q does not hold %q", msg, w)
				}
			}
			if !errors.Is(err, cause) {
				t.Error("does not wrap its cause")
			}
		})
	}
}
