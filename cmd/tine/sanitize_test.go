package main

import "testing"

// TestSanitize: control characters and the invisible format characters
// that can reorder or hide text are dropped; a tab becomes a space, so
// the words it separated stay apart.
func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"FAIL\t./pkg\t0.1s":       "FAIL ./pkg 0.1s",
		"a\x1b[31mred\x1b[0m":     "a[31mred[0m",
		"line\r\nnext":            "linenext",
		"rtl\u202eevil\u202c end": "rtlevil end",
		"zero\u200bwidth":         "zerowidth",
		"plain text, ünïcode":     "plain text, ünïcode",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
