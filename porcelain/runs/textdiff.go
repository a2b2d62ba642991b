package runs

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// This file is the only user of sergi/go-diff (STYLE.md "Determinism"). The
// library's DiffTimeout defaults to one second, after which it returns a
// coarser diff, so the same two texts could diff differently on a loaded
// machine. Every diff here runs with DiffTimeout = 0 (no deadline), and the
// inputs are bounded by a size cap instead, so the output depends only on
// the texts.

const (
	// DefaultTextDiffMaxBytes is the largest text (per side) UnifiedDiff
	// compares when no cap is given; larger inputs are summarised by size.
	DefaultTextDiffMaxBytes = 1 << 20
	// DefaultTextDiffContext is the number of unchanged lines shown around
	// each change, as in diff -u.
	DefaultTextDiffContext = 3
	// binarySniffBytes is how much of a text is inspected for NUL bytes,
	// the heuristic git uses to call a file binary.
	binarySniffBytes = 8000
)

// TextDiffOptions configures UnifiedDiff.
type TextDiffOptions struct {
	// OldName and NewName label the two sides in the ---/+++ header.
	OldName, NewName string
	// Context is the number of unchanged lines around each change; 0 means
	// DefaultTextDiffContext and a negative value shows none.
	Context int
	// MaxBytes caps the size of either side; 0 means
	// DefaultTextDiffMaxBytes.
	MaxBytes int
}

// TextDiff is the outcome of comparing two texts.
type TextDiff struct {
	// Equal reports byte-identical inputs.
	Equal bool `json:"equal"`
	// Binary reports that either side looks binary (a NUL byte near the
	// start, or invalid UTF-8); no line diff is computed then.
	Binary bool `json:"binary,omitempty"`
	// TooLarge reports that either side exceeds the size cap; no line diff
	// is computed then.
	TooLarge bool `json:"too_large,omitempty"`
	// OldSize and NewSize are the input sizes in bytes.
	OldSize int `json:"old_size"`
	NewSize int `json:"new_size"`
	// Added and Removed count changed lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Unified is the diff -u text (headers and hunks), empty when Equal,
	// Binary or TooLarge.
	Unified string `json:"unified,omitempty"`
}

// UnifiedDiff compares two texts line by line with go-diff (no timeout, so
// the result is deterministic) and renders the changes as a unified diff.
// Binary and oversized inputs are detected first and only summarised.
func UnifiedDiff(oldText, newText []byte, opt TextDiffOptions) *TextDiff {
	d := &TextDiff{OldSize: len(oldText), NewSize: len(newText), Equal: bytes.Equal(oldText, newText)}
	if d.Equal {
		return d
	}
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultTextDiffMaxBytes
	}
	if len(oldText) > limit || len(newText) > limit {
		d.TooLarge = true
		return d
	}
	if looksBinary(oldText) || looksBinary(newText) {
		d.Binary = true
		return d
	}
	lines := diffLines(string(oldText), string(newText))
	for _, l := range lines {
		switch l.op {
		case '+':
			d.Added++
		case '-':
			d.Removed++
		}
	}
	ctx := opt.Context
	switch {
	case ctx == 0:
		ctx = DefaultTextDiffContext
	case ctx < 0:
		ctx = 0
	}
	d.Unified = renderUnified(lines, opt.OldName, opt.NewName, ctx)
	return d
}

// looksBinary reports text that a line diff would mangle: a NUL byte in
// the first binarySniffBytes bytes, or bytes that are not UTF-8.
func looksBinary(b []byte) bool {
	head := b
	if len(head) > binarySniffBytes {
		head = head[:binarySniffBytes]
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(b)
}

// diffLine is one line of a line-level edit script: op is ' ' (in both),
// '-' (only old) or '+' (only new); text keeps its trailing LF if any.
type diffLine struct {
	op   byte
	text string
}

// diffLines runs go-diff in line mode: every distinct line becomes one
// rune, the rune strings are diffed, and the runes are mapped back.
func diffLines(oldText, newText string) []diffLine {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	a, b, table := dmp.DiffLinesToRunes(oldText, newText)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), table)
	var out []diffLine
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range splitLinesKeepLF(d.Text) {
			out = append(out, diffLine{op: op, text: l})
		}
	}
	return out
}

// splitLinesKeepLF splits s after every LF; a final piece without LF is a
// line of its own.
func splitLinesKeepLF(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// renderUnified groups the edit script into hunks with ctx lines of
// context and writes them in diff -u form.
func renderUnified(lines []diffLine, oldName, newName string, ctx int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", labelOr(oldName, "a"), labelOr(newName, "b"))
	n := len(lines)
	for i := 0; i < n; {
		if lines[i].op == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		// Extend the hunk while the next change is within 2*ctx lines.
		end := i
		for j := i; j < n; j++ {
			if lines[j].op != ' ' {
				end = j
				continue
			}
			if j-end > 2*ctx {
				break
			}
		}
		stop := min(end+ctx+1, n)
		writeHunk(&sb, lines, start, stop)
		i = stop
	}
	return sb.String()
}

// writeHunk writes lines[start:stop] as one hunk with its @@ header.
func writeHunk(sb *strings.Builder, lines []diffLine, start, stop int) {
	oldLine, newLine := 1, 1
	for _, l := range lines[:start] {
		if l.op != '+' {
			oldLine++
		}
		if l.op != '-' {
			newLine++
		}
	}
	oldCount, newCount := 0, 0
	for _, l := range lines[start:stop] {
		if l.op != '+' {
			oldCount++
		}
		if l.op != '-' {
			newCount++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(oldLine, oldCount), hunkRange(newLine, newCount))
	for _, l := range lines[start:stop] {
		sb.WriteByte(l.op)
		sb.WriteString(strings.TrimSuffix(l.text, "\n"))
		sb.WriteByte('\n')
		if !strings.HasSuffix(l.text, "\n") {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
}

// hunkRange spells a hunk side as diff -u does: "l,c", "l" when c is 1,
// and "l-1,0" for an empty side.
func hunkRange(line, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	case 1:
		return fmt.Sprintf("%d", line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}

func labelOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
