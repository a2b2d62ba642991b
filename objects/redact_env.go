package objects

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// MinEnvSecretLen is the shortest environment value NewEnvRedactor treats
// as a secret. Shorter values ("1", "true", "dev") occur in ordinary
// output so often that replacing them would destroy it; ConstraintLoop
// uses the same bound (constraintloop SPEC §10).
const MinEnvSecretLen = 8

// Redactor scrubs like RedactBlob and RedactValue and also replaces a set
// of literal secret values (the values of a command's secret-named
// environment variables) wherever they appear, with the SPEC §1.7 marker.
// The zero Redactor, and a nil *Redactor, scrub exactly as RedactBlob and
// RedactValue do.
type Redactor struct {
	values [][]byte // longest first, so a value holding another goes first
}

// NewEnvRedactor returns a Redactor for a command run with env ("NAME=value"
// entries): the value of every variable whose name is secret is replaced
// too, so `echo $API_KEY` cannot store the key. A name is secret when it
// contains KEY, TOKEN, SECRET, PASSWORD or PASSWD (any case, ConstraintLoop's
// rule), or names a credential under SPEC §1.7 (DATABASE_DSN, SESSION_COOKIE,
// ...), except PWD, the working directory. Values shorter than
// MinEnvSecretLen bytes, values inside the marker itself (replacing them
// would not be idempotent) and values that are not UTF-8 (UTF-8 is
// self-synchronising, so a UTF-8 value only ever matches whole characters
// of UTF-8 text, and a replacement never leaves half a character) are
// left alone.
func NewEnvRedactor(env []string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || len(val) < MinEnvSecretLen || seen[val] || strings.Contains(Redacted, val) ||
			!utf8.ValidString(val) || !isSecretEnvName(name) {
			continue
		}
		seen[val] = true
		r.values = append(r.values, []byte(val))
	}
	slices.SortFunc(r.values, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

// isSecretEnvName reports whether an environment variable's value is a
// secret by its name (see NewEnvRedactor).
func isSecretEnvName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	return up != "PWD" && classifyName(name) != notSecret
}

// Blob returns b scrubbed as RedactBlob scrubs it, with every literal
// secret value then replaced. The result may share memory with b.
func (r *Redactor) Blob(b []byte) []byte {
	out := RedactBlob(b)
	if r == nil {
		return out
	}
	return r.literals(out)
}

// literals replaces every literal secret value in b, longest first.
func (r *Redactor) literals(b []byte) []byte {
	for _, v := range r.values {
		if bytes.Contains(b, v) {
			b = bytes.ReplaceAll(b, v, []byte(Redacted))
		}
	}
	return b
}

// Text returns s scrubbed as Blob scrubs bytes (for text that is not UTF-8,
// RedactBlob's passes are skipped but literal values are still replaced).
func (r *Redactor) Text(s string) string {
	return string(r.Blob([]byte(s)))
}

// Value returns v redacted as RedactValue redacts it, with every literal
// secret value then replaced inside every string (keys are names, not
// values, and stay), and the number of values replaced in all.
func (r *Redactor) Value(v Value) (Value, int) {
	out, n := RedactValue(v)
	if r == nil || len(r.values) == 0 {
		return out, n
	}
	return r.valueLiterals(out, 0, &n), n
}

// valueLiterals replaces literal secret values in the strings of v.
func (r *Redactor) valueLiterals(v Value, depth int, count *int) Value {
	switch v.Kind {
	case KindString:
		if s := r.literals([]byte(v.Str)); string(s) != v.Str {
			*count++
			return String(string(s))
		}
	case KindArray:
		if depth >= MaxRedactDepth {
			return v
		}
		out := make([]Value, len(v.Array))
		for i := range v.Array {
			out[i] = r.valueLiterals(v.Array[i], depth+1, count)
		}
		return Value{Kind: KindArray, Array: out}
	case KindObject:
		if depth >= MaxRedactDepth {
			return v
		}
		out := make([]Member, len(v.Object))
		for i, m := range v.Object {
			out[i] = Member{Key: m.Key, Value: r.valueLiterals(m.Value, depth+1, count)}
		}
		return Value{Kind: KindObject, Object: out}
	}
	return v
}

// Reader returns a reader of rd's bytes scrubbed as Blob scrubs them, in
// constant memory (NewRedactReader's chunking; a chunk is extended while it
// ends inside what may be a secret value, so no value escapes by
// straddling a chunk end).
func (r *Redactor) Reader(rd io.Reader) io.Reader {
	z := newRedactReader(rd)
	z.lit = r
	return z
}

// endsInValue reports whether b ends with a proper prefix of a literal
// secret value, so that the value may continue in the next chunk.
func (r *Redactor) endsInValue(b []byte) bool {
	if r == nil {
		return false
	}
	for _, v := range r.values {
		tail := b[max(0, len(b)-len(v)+1):]
		for i := bytes.IndexByte(tail, v[0]); i >= 0; {
			if bytes.HasPrefix(v, tail[i:]) {
				return true
			}
			j := bytes.IndexByte(tail[i+1:], v[0])
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return false
}
