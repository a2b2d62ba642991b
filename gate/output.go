package gate

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// truncatedPrefix marks an output tail that was cut (SPEC §2).
const truncatedPrefix = "[output truncated]\n"

// redactor scrubs text: objects.RedactBlob's credential shapes, then the
// values of secret-named environment variables (SPEC §10: a name holding
// KEY, TOKEN, SECRET or PASSWORD and a value of at least 8 characters).
type redactor struct {
	values [][]byte // longest first, so a value containing another goes first
}

func newRedactor(env []string) *redactor {
	r := &redactor{}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || len(val) < 8 {
			continue
		}
		up := strings.ToUpper(name)
		if strings.Contains(up, "KEY") || strings.Contains(up, "TOKEN") || strings.Contains(up, "SECRET") || strings.Contains(up, "PASSWORD") {
			r.values = append(r.values, []byte(val))
		}
	}
	slices.SortFunc(r.values, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

// bytes returns a redacted copy of b.
func (r *redactor) bytes(b []byte) []byte {
	out := bytes.Clone(objects.RedactBlob(b))
	for _, v := range r.values {
		out = bytes.ReplaceAll(out, v, []byte(objects.Redacted))
	}
	return out
}

// text returns s redacted.
func (r *redactor) text(s string) string { return string(r.bytes([]byte(s))) }

// outputTail joins trimmed stdout and stderr, redacts the whole text, and
// only then keeps its last limit bytes behind "[output truncated]\n"
// (SPEC §2: redaction runs before truncation, so a secret cut in half by
// the tail boundary has already been replaced). The cut lands on a UTF-8
// boundary.
func (r *redactor) outputTail(stdout, stderr []byte, limit int) []byte {
	var joined []byte
	joined = append(joined, bytes.TrimSpace(stdout)...)
	joined = append(joined, '\n')
	joined = append(joined, bytes.TrimSpace(stderr)...)
	joined = bytes.TrimSpace(joined)
	return cutTail(r.bytes(joined), limit)
}

// cutTail keeps the last bytes of b so the result, prefix included, is at
// most limit bytes.
func cutTail(b []byte, limit int) []byte {
	if len(b) <= limit {
		return b
	}
	keep := limit - len(truncatedPrefix)
	if keep < 0 {
		keep = 0
	}
	start := len(b) - keep
	for start < len(b) && !utf8.RuneStart(b[start]) {
		start++
	}
	out := make([]byte, 0, len(truncatedPrefix)+len(b)-start)
	out = append(out, truncatedPrefix...)
	return append(out, b[start:]...)
}
