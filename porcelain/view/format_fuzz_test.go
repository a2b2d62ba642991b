package view

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLabelEscaping: whatever a run records, a cleaned and escaped label
// cannot end its Mermaid or DOT string or start markup.
func FuzzLabelEscaping(f *testing.F) {
	for _, s := range []string{"", `"]) --> x; click e0 "javascript:alert(1)"`, "<script>alert(1)</script>", "\\N\\G\\l", "a\nb\r\u2028c", "&amp;#quot;", "\xff\xfe", "`md` **b** |x|", "invoice\u202etxt.exe", "\u2067x\u2069\u200f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := cleanLine(s)
		if !utf8.ValidString(line) || strings.ContainsAny(line, "\n\r\x00\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") || utf8.RuneCountInString(line) > maxLabelRunes+3 {
			t.Fatalf("cleanLine(%q) = %q", s, line)
		}
		m := mermaidText(line)
		for _, r := range m {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" .,:/=+-@#;", r)) {
				t.Fatalf("mermaidText(%q) = %q holds %q", line, m, r)
			}
		}
		d := dotText(line)
		for i := 0; i < len(d); i++ {
			switch d[i] {
			case '\\':
				i++ // an escape: the next byte is taken literally
				if i == len(d) || (d[i] != '\\' && d[i] != '"') {
					t.Fatalf("dotText(%q) = %q: a lone backslash", line, d)
				}
			case '"':
				t.Fatalf("dotText(%q) = %q: an unescaped quote", line, d)
			}
		}
		if strings.Contains(strings.ReplaceAll(d, "&amp;", ""), "&") {
			t.Fatalf("dotText(%q) = %q: a bare &", line, d)
		}
	})
}
