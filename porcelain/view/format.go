package view

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/porcelain/runs"
)

// maxLabelRunes cuts one line of a drawn label; recorded text can be of
// any length and a picture is for reading.
const maxLabelRunes = 72

// drawing is a graph as boxes and lines, the shape both Mermaid and DOT
// are written from. Node ids are generated ("e3", "r0", "c1"), never
// recorded text; labels are recorded text, escaped by each writer.
type drawing struct {
	nodes []drawNode
	edges []drawEdge
}

// drawNode is one box: its id, its label's lines and a style class from
// a fixed set ("bad", "missing", "chain", "ref", "st_<status>").
type drawNode struct {
	id    string
	lines []string
	class string
}

// drawEdge is a parent-to-child line, or a dotted one from a tip to the
// ref naming its run.
type drawEdge struct {
	from, to string
	ref      bool
}

// knownStatus maps a recorded run status to a style class; an unknown
// status gets none (the status is recorded text).
var knownStatus = map[string]string{
	runs.StatusRunning:   "st_running",
	runs.StatusPaused:    "st_paused",
	runs.StatusCompleted: "st_completed",
	runs.StatusFailed:    "st_failed",
}

// eventLines is an event's label: short oid, kind and label, then the
// numbers worth seeing in a picture.
func eventLines(le *runs.LogEntry) []string {
	what := le.Kind
	if le.Label != "" && le.Label != le.Kind {
		what = strings.TrimSpace(what + " " + le.Label)
	}
	if le.Missing {
		what = "(not stored locally)"
	}
	lines := []string{strings.TrimSpace(le.Short + " " + what)}
	var nums []string
	if le.ExitCode != nil {
		nums = append(nums, fmt.Sprintf("exit %d", *le.ExitCode))
	}
	if le.Score != nil {
		nums = append(nums, "score "+fmtNum(*le.Score))
	}
	if le.Cost != 0 {
		nums = append(nums, "$"+fmtNum(le.Cost))
	}
	if len(nums) > 0 {
		lines = append(lines, strings.Join(nums, ", "))
	}
	if le.Error != "" {
		lines = append(lines, "error: "+le.Error)
	}
	return lines
}

// runLines is a ref box's label: the ref (or the run's short oid), its
// status, where it was forked from and its evaluation scores.
func runLines(gr *GraphRun) []string {
	name := gr.Ref
	if name == "" {
		name = "run " + shortOID(gr.Run)
	}
	lines := []string{name, gr.Status}
	if f := gr.ForkedFrom; f != nil {
		lines = append(lines, "forked from "+shortOID(f.Run)+" at "+shortOID(f.Event))
	}
	for i, s := range gr.Scores {
		if i == 4 {
			lines = append(lines, fmt.Sprintf("(%d more scores)", len(gr.Scores)-i))
			break
		}
		lines = append(lines, s.Name+" = "+fmtNum(s.Value))
	}
	return lines
}

// shortOID is the short form of an oid string.
func shortOID(s string) string { return runs.ShortString(s) }

// fmtNum prints a number the shortest way that reads it back.
func fmtNum(f float64) string { return fmt.Sprintf("%g", f) }

// cleanLine makes one line of recorded text safe to measure and cut:
// invalid UTF-8, control characters (newlines included) and bidirectional
// controls become spaces, and the line is cut to maxLabelRunes with an
// ellipsis.
func cleanLine(s string) string {
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n == maxLabelRunes {
			b.WriteString("...")
			break
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				r = ' '
			}
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || isBidiControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// isBidiControl reports the bidirectional marks, embeddings, overrides
// and isolates: in a label they would reorder what a reader sees
// ("txt.exe" drawn as "exe.txt"), in Mermaid's entity codes as much as
// in raw text.
func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
