package agents

import (
	"fmt"
	"unicode/utf8"
)

// MaxErrorText bounds the text of one refusal. A schema refusal quotes
// the offending argument, so a 1 MiB event over its bound would otherwise
// come back as a 1 MiB error; the start (which names the argument) and the
// end (which names the bound) are kept.
const MaxErrorText = 1024

// bound cuts the text of an error the server answers with, a tool error
// or a protocol one (an unknown tool's name is quoted too), to
// MaxErrorText bytes.
func bound(s string) string {
	if len(s) <= MaxErrorText {
		return s
	}
	return elide(s, MaxErrorText)
}

// elide cuts s to at most max bytes by replacing its middle with a note
// of how much was left out, on rune boundaries.
func elide(s string, max int) string {
	keep := (max - 40) / 2
	head, tail := keep, len(s)-keep
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s …(%d bytes cut)… %s", s[:head], tail-head, s[tail:])
}
