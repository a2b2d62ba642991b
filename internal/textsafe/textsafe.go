// Package textsafe makes text tine did not choose safe to show on a
// terminal: names from a repository or a pulled run, values of imported
// events, words of a server, a model provider or a step command. Such text
// can carry bytes that drive the terminal (an escape sequence that sets the
// title or clears the screen), reorder the line (a bidi override), break it
// (U+2028) or flood it; Clip shows each of them as a visible escape and
// bounds the length, keeping every other character as it is.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unshowable reports whether r may not reach a user's terminal as it is: a
// control character (C0, DEL, C1: they drive the terminal), a format
// character (bidi controls, zero-width characters, tags: they reorder or
// hide text) or a line or paragraph separator.
func Unshowable(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// Showable reports whether s is valid UTF-8 holding no Unshowable
// character, so Clip would return it unchanged when short enough.
func Showable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if Unshowable(r) {
			return false
		}
	}
	return true
}

// Clip returns s as one line of printable UTF-8 of at most n bytes plus a
// note of what was cut: each byte of invalid UTF-8 as \xNN, each
// Unshowable character as \xNN (below U+0100), \uNNNN or \UNNNNNNNN, every
// other character unchanged. Once the next piece would take the line past
// n bytes, it stops and appends "... (K more bytes not shown)", K counting
// the bytes of s left out. A backslash is not escaped, so ordinary text
// (a Windows path) reads as it was.
func Clip(s string, n int) string {
	if len(s) <= n && Showable(s) {
		return s
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, s[i])
		case Unshowable(r) && r < 0x100:
			piece = fmt.Sprintf(`\x%02x`, r)
		case Unshowable(r) && r <= 0xffff:
			piece = fmt.Sprintf(`\u%04x`, r)
		case Unshowable(r):
			piece = fmt.Sprintf(`\U%08x`, r)
		default:
			piece = s[i : i+size]
		}
		if b.Len()+len(piece) > n {
			break
		}
		b.WriteString(piece)
		i += size
	}
	if i < len(s) {
		fmt.Fprintf(&b, "... (%d more bytes not shown)", len(s)-i)
	}
	return b.String()
}
