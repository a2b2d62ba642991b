package objects

import (
	"strings"
	"unicode"
)

// RedactValue returns v with every credential replaced by the string
// "[REDACTED]", and how many values it replaced (SPEC §1.7, the writer's
// value walk). v itself is not modified. The rules:
//
//   - a member whose key names a secret (NormalizeKeyName, then the SPEC
//     name and suffix lists) has its value replaced outright, whatever its
//     type; a key that only ends in "token" ("token", "csrf_token") keeps a
//     number, so token counters survive;
//   - a header pair {"name": N, "value": V} with N a secret name has V
//     replaced, and so does the second item of a two-item list [N, V];
//   - a string "label: value" or "label=value" whose label is a secret name
//     becomes "label: [REDACTED]". It splits at the first ':' or '='; the
//     label, trimmed, must be one word (no white space inside), which keeps
//     prose such as "how to rotate the api_key: see docs" intact, and the
//     value must not be empty, so a bare "Password:" prompt survives;
//   - the password in a URL inside a string is replaced, as RedactBlob
//     replaces it: "postgres://app:[REDACTED]@db/main".
//
// Containers nested deeper than MaxRedactDepth are returned as they are;
// no such value can be canonicalised, so none can be stored. The walk is
// idempotent: redacting its result again changes nothing and counts 0.
func RedactValue(v Value) (Value, int) {
	var count int
	out := redactWalk(v, 0, &count)
	return out, count
}

// redactWalk redacts v, which sits inside depth containers.
func redactWalk(v Value, depth int, count *int) Value {
	switch v.Kind {
	case KindString:
		s, changed := redactLabelled(v.Str)
		if strings.Contains(s, "://") && strings.IndexByte(s, '@') >= 0 {
			if u := redactURLCredentials([]byte(s)); string(u) != s {
				s, changed = string(u), true
			}
		}
		if changed {
			*count++
			return String(s)
		}
		return v
	case KindArray:
		if depth >= MaxRedactDepth {
			return v
		}
		out := make([]Value, len(v.Array))
		for i := range v.Array {
			out[i] = redactWalk(v.Array[i], depth+1, count)
			// SPEC §1.7: ["authorization", "Bearer x"] is a header written
			// as a pair; the name is judged as the walk left it.
			if i == 0 && len(v.Array) == 2 && out[0].Kind == KindString &&
				classifyName(out[0].Str).redacts(v.Array[1]) {
				out[1] = redactedFor(v.Array[1], count)
				break
			}
		}
		return Value{Kind: KindArray, Array: out}
	case KindObject:
		if depth >= MaxRedactDepth {
			return v
		}
		return redactObject(v, depth, count)
	}
	return v
}

// redactObject redacts the members of the object v.
func redactObject(v Value, depth int, count *int) Value {
	// SPEC §1.7 header pair: {"name": "Authorization", "value": ...}.
	pairSecret := false
	if name, ok := v.Get("name"); ok && name.Kind == KindString {
		if val, ok := v.Get("value"); ok {
			pairSecret = classifyName(name.Str).redacts(val)
		}
	}
	out := make([]Member, len(v.Object))
	for i, m := range v.Object {
		out[i].Key = m.Key
		switch {
		case pairSecret && m.Key == "value", classifyName(m.Key).redacts(m.Value):
			out[i].Value = redactedFor(m.Value, count)
		default:
			out[i].Value = redactWalk(m.Value, depth+1, count)
		}
	}
	return Value{Kind: KindObject, Object: out}
}

// redactedFor returns the replacement of a secret value, counting it unless
// it already was the marker.
func redactedFor(v Value, count *int) Value {
	if v.Kind != KindString || v.Str != Redacted {
		*count++
	}
	return String(Redacted)
}

// redactLabelled applies the SPEC §1.7 "label: value" rule to one string.
// It returns the new string and whether it differs from s.
func redactLabelled(s string) (string, bool) {
	i := strings.IndexAny(s, ":=")
	if i <= 0 {
		return s, false
	}
	label := strings.TrimSpace(s[:i])
	if label == "" || strings.IndexFunc(label, unicode.IsSpace) >= 0 {
		return s, false
	}
	rest := strings.TrimSpace(s[i+1:])
	if rest == "" {
		return s, false
	}
	switch classifyName(label) {
	case notSecret:
		return s, false
	case tokenish:
		if isNumberText(rest) {
			return s, false
		}
	}
	out := label + ": " + Redacted
	return out, out != s
}

// isNumberText reports whether s is a JSON number literal: the text form of
// a token counter, which a "token" label keeps.
func isNumberText(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isASCIIDigit(s[i]) {
		i++
	}
	if i == start {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		frac := i
		for i < len(s) && isASCIIDigit(s[i]) {
			i++
		}
		if i == frac {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for i < len(s) && isASCIIDigit(s[i]) {
			i++
		}
		if i == exp {
			return false
		}
	}
	return i == len(s)
}
