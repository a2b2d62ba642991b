package objects

import (
	"bytes"
	"regexp"
	"sync"
	"unicode/utf8"
)

// RedactBlob returns the blob bytes b with credentials scrubbed (SPEC §1.7,
// the writer's byte scrubber). Bytes that are not UTF-8 are opaque and come
// back unchanged (the same slice). Four passes run over text:
//
//  1. PEM private key blocks ("-----BEGIN ... PRIVATE KEY-----" through the
//     matching END line, or through the end of the text when the block is
//     cut off) become "[REDACTED PRIVATE KEY]";
//  2. well-known token shapes become "[REDACTED]" wherever they stand:
//     OpenAI/Anthropic "sk-" keys, GitHub "ghp_"/"gho_"/.../"github_pat_"
//     tokens, AWS "AKIA"/"ASIA" key ids, Slack "xox?-" tokens, GitLab
//     "glpat-" tokens, Google "AIza" keys, Stripe "sk_live_"-style keys and
//     JWTs; a match must hold both a letter and a digit after its prefix so
//     words like "sk-learn-compatible-wrapper" survive;
//  3. assignments whose label names a secret (the value walk's key rules):
//     "api_key=sk-…" becomes "api_key=[REDACTED]", "Authorization: Bearer
//     …" becomes "Authorization: [REDACTED]" (an auth scheme word goes with
//     the value), and a quoted value keeps its quotes. A label that only ends
//     in "token" keeps a number; values that open a JSON object or array,
//     and the JSON literals true, false and null, are left for their own
//     keys, so a JSON blob stays JSON;
//  4. the password of a URL's user information becomes "[REDACTED]":
//     "postgres://app:hunter2@db/main" becomes
//     "postgres://app:[REDACTED]@db/main" (scheme, user and host stay).
//
// The work is linear in len(b) (Go's regexp is an automaton, the assignment
// scanner never backs up past a separator), and RedactBlob(RedactBlob(b))
// equals RedactBlob(b). The result may share memory with b.
func RedactBlob(b []byte) []byte {
	if !utf8.Valid(b) {
		return b
	}
	out := b
	// The regexps cost ~100 µs per KiB; most text holds none of the
	// literals they start with, so a cheap literal scan decides whether
	// they can match at all (the result is the same either way).
	if bytes.Contains(out, pemMarker) {
		out = pemBlock().ReplaceAllLiteral(out, []byte("[REDACTED PRIVATE KEY]"))
	}
	if mayHoldToken(out) {
		out = tokenShape().ReplaceAllFunc(out, func(m []byte) []byte {
			if !tokenShapeBody(m) {
				return m
			}
			return []byte(Redacted)
		})
	}
	// URL passwords go before assignments, so "dsn=postgres://u:p@h" is
	// still replaced whole by the assignment rule.
	return redactAssignments(redactURLCredentials(out))
}

// pemMarker is in every match of pemBlock.
var pemMarker = []byte("PRIVATE KEY")

// tokenLiterals holds, for every alternative of tokenShape, a literal that
// each of its matches contains; keep the two in step (the token-shape
// tests fail when a literal is missing).
var tokenLiterals = [][]byte{
	[]byte("sk-"), []byte("ghp_"), []byte("gho_"), []byte("ghu_"), []byte("ghs_"), []byte("ghr_"),
	[]byte("github_pat_"), []byte("AKIA"), []byte("ASIA"), []byte("xoxa-"), []byte("xoxb-"),
	[]byte("xoxp-"), []byte("xoxr-"), []byte("xoxs-"), []byte("glpat-"), []byte("AIza"),
	[]byte("k_live_"), []byte("k_test_"), []byte("eyJ"),
}

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

// pemBlock matches a PEM private key block, or an unterminated one through
// the end of the text. Leftmost-first alternation prefers the END line.
var pemBlock = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----` +
		`(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)`)
})

// tokenShape matches the token shapes of well-known providers.
var tokenShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:` +
		`sk-[A-Za-z0-9_-]{20,}` + // OpenAI ("sk-proj-…") and Anthropic ("sk-ant-…")
		`|gh[pousr]_[A-Za-z0-9]{30,}` + // GitHub classic tokens
		`|github_pat_[A-Za-z0-9_]{40,}` + // GitHub fine-grained tokens
		`|(?:AKIA|ASIA)[0-9A-Z]{16}\b` + // AWS access key ids
		`|xox[abprs]-[A-Za-z0-9-]{10,}` + // Slack
		`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab
		`|AIza[0-9A-Za-z_-]{35}` + // Google API keys
		`|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}` + // Stripe
		`|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}` + // JWT
		`)`)
})

// tokenShapeBody reports whether a tokenShape match looks random rather
// than like hyphenated words: it must hold an ASCII letter and a digit
// after its first three bytes (every shape's prefix is at least that long).
func tokenShapeBody(m []byte) bool {
	var letter, digit bool
	for _, c := range m[3:] {
		switch {
		case isASCIIDigit(c):
			digit = true
		case isASCIIUpper(c) || isASCIILower(c):
			letter = true
		}
	}
	return letter && digit
}

// authSchemes are the HTTP auth scheme words that belong to the secret
// value after an Authorization label ("Bearer sk-…").
var authSchemes = [][]byte{
	[]byte("bearer"), []byte("basic"), []byte("token"), []byte("digest"), []byte("negotiate"), []byte("ntlm"),
}

// isLabelByte reports whether c may be part of an assignment label.
func isLabelByte(c byte) bool {
	return isASCIIUpper(c) || isASCIILower(c) || isASCIIDigit(c) || c == '_' || c == '-' || c == '.'
}

// isValueEnd reports whether c ends an unquoted value.
func isValueEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\f', '\v', '"', '\'', '`', ',', ';', '&', '<', '>', ')', '}':
		return true
	}
	return false
}

// hasFoldPrefix reports whether b starts with the lower-case word w,
// ignoring ASCII case.
func hasFoldPrefix(b, w []byte) bool {
	return len(b) >= len(w) && bytes.EqualFold(b[:len(w)], w)
}
