package textsafe

import (
	"strings"
	"testing"
)

// TestClip: control and format characters, separators and invalid UTF-8
// become visible escapes, other text is kept byte for byte, and the
// result stops before n bytes would be passed, saying how many of s's
// bytes it left out.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"plain", `C:\runs\ünïcødé "名前" ✓`, 100, `C:\runs\ünïcødé "名前" ✓`},
		{"escape sequences", "a\x1b]2;owned\x07\x1b[31mb\x7f\u0085", 100, `a\x1b]2;owned\x07\x1b[31mb\x7f\x85`},
		{"bidi and zero width", "x\u202ey\u2066z\u200b\ufeff", 100, `x\u202ey\u2066z\u200b\ufeff`},
		{"separators and breaks", "a\u2028b\u2029c\nd\re\tf", 100, `a\u2028b\u2029c\x0ad\x0de\x09f`},
		{"invalid UTF-8", "a\xffb\xc3", 100, `a\xffb\xc3`},
		{"tag character", "x\U000e0001y", 100, `x\U000e0001y`},
		{"exactly n", "abcdef", 6, "abcdef"},
		{"one over", "abcdefg", 6, "abcdef... (1 more bytes not shown)"},
		{"escape not split", "abcd\x1b", 6, "abcd... (1 more bytes not shown)"},
		{"letter not split", "abcdeé", 6, "abcde... (2 more bytes not shown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clip(tc.in, tc.n); got != tc.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

// TestClipBound: however long s and however many of its bytes need
// escaping, Clip returns at most n bytes of it and the note.
func TestClipBound(t *testing.T) {
	const n = 4096
	for _, s := range []string{strings.Repeat("A", 1<<20), strings.Repeat("\x1b", 1<<20), strings.Repeat("é\U000e0001\xff", 1<<18)} {
		got := Clip(s, n)
		head, note, ok := strings.Cut(got, "... (")
		if !ok || len(head) > n || len(head) < n-10 || !strings.HasSuffix(note, " more bytes not shown)") {
			t.Errorf("Clip of %d bytes: %d bytes, note %q", len(s), len(got), note)
		}
		if !Showable(got) {
			t.Errorf("Clip of %d bytes is not showable", len(s))
		}
	}
}

// TestShowable: only valid UTF-8 without unshowable characters passes.
func TestShowable(t *testing.T) {
	for s, want := range map[string]bool{"": true, "héllo 名前": true, "a\tb": false, "a\xff": false, "a\u202e": false, "a\u2028": false} {
		if got := Showable(s); got != want {
			t.Errorf("Showable(%q) = %v, want %v", s, got, want)
		}
	}
}
