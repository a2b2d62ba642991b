package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/tinehq/tine/porcelain/runs"
)

// jsonFlag is embedded by every verb that can print its result as JSON.
type jsonFlag struct {
	JSON bool `name:"json" help:"Print one JSON object (with a \"command\" field naming the verb) instead of text."`
}

// writeJSON prints result as exactly one JSON object: the result's own
// fields plus "command" (the verb). Keys are sorted at every depth and
// indented by two spaces so output is stable and diffable; numbers keep
// their exact text. Fields are only ever added, so scripts may rely on any
// field they see.
//
// A struct result is written one member at a time, and a list member one
// element at a time (json_stream.go), so a listing of every event of a
// long history is never held twice more as JSON; other results, and what
// the streaming cannot split, go through writeJSONWhole. Both print the
// same bytes.
func writeJSON(w io.Writer, command string, result any) error {
	if ok, err := streamJSON(w, command, result); ok {
		return err
	}
	return writeJSONWhole(w, command, result)
}

// writeJSONWhole is writeJSON done in memory: the result is encoded,
// decoded into maps (which sort keys), given its "command" and encoded
// again, indented.
func writeJSONWhole(w io.Writer, command string, result any) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("encoding result as JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("result of %s is not a JSON object: %w", command, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, clash := m["command"]; clash {
		return fmt.Errorf("result of %s already has a \"command\" field", command)
	}
	m["command"] = command
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// printer writes human output, remembering the first write error so a
// verb can print many lines and check once.
type printer struct {
	w     io.Writer
	color bool
	err   error
}

// printf writes one formatted piece of output.
func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// ANSI styles, used only when colour is on (a terminal and no NO_COLOR).
const (
	styleGreen = "\x1b[32m"
	styleRed   = "\x1b[31m"
	styleDim   = "\x1b[2m"
	styleReset = "\x1b[0m"
)

func (p *printer) style(code, s string) string {
	if !p.color {
		return s
	}
	return code + s + styleReset
}

// good marks a success word ("ok").
func (p *printer) good(s string) string { return p.style(styleGreen, s) }

// bad marks a problem word ("corrupt", "refused").
func (p *printer) bad(s string) string { return p.style(styleRed, s) }

// dim marks secondary detail (timestamps, messages).
func (p *printer) dim(s string) string { return p.style(styleDim, s) }

// colorFor applies --color: always and never decide, auto (or none, in a
// test driving run without the flag) is wantColor.
func colorFor(mode string, w io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return wantColor(w, getenv)
}

// wantColor reports whether human output to w should be coloured: only
// when w is a terminal, NO_COLOR is unset or empty (no-color.org) and TERM
// is not "dumb" (a terminal that cannot show escape sequences).
func wantColor(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// styleYellow marks oids, as git does.
const styleYellow = "\x1b[33m"

// fmtCost renders a cost in dollars.
func fmtCost(c float64) string {
	if c >= 1 {
		return fmt.Sprintf("$%.2f", c)
	}
	return "$" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", c), "0"), ".")
}

// fmtDuration renders seconds.
func fmtDuration(s float64) string {
	switch {
	case s < 1:
		return fmt.Sprintf("%.0fms", s*1000)
	case s < 120:
		return fmt.Sprintf("%.1fs", s)
	}
	return fmt.Sprintf("%.0fm%02.0fs", float64(int(s)/60), float64(int(s)%60))
}

// shortOID returns the 12-digit prefix of an oid string.
func shortOID(s string) string { return runs.ShortString(s) }

// clip cuts s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}

// sanitize strips control characters from recorded text before it reaches
// a terminal (recorded data must not drive the terminal). A tab, which
// drives nothing but separates words (`FAIL\t./pkg` in a test's output),
// becomes a space.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return -1
		}
		return r
	}, s)
}

// page renders human output, through $PAGER (default "less -FRX") when
// stdout is a terminal; PAGER="" or "cat" writes directly.
func (e *env) page(render func(p *printer)) error {
	f, ok := e.stdout.(*os.File)
	pager, set := os.LookupEnv("PAGER")
	if !set {
		pager = "less -FRX"
	}
	if e.noPager || !ok || !isTerminal(f) || strings.TrimSpace(pager) == "" || strings.TrimSpace(pager) == "cat" {
		p := e.printer()
		render(p)
		return p.err
	}
	var buf bytes.Buffer
	p := &printer{w: &buf, color: e.color}
	render(p)
	if p.err != nil {
		return p.err
	}
	// The pager owns the terminal until the user quits it, as git's
	// does: an interrupt neither kills it (less handles Ctrl-C itself,
	// and a killed less leaves the terminal in raw mode) nor, while it
	// runs, ends tine under it; tine ends by the signal once it exits.
	if e.ctx.Err() != nil {
		return context.Cause(e.ctx)
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &buf, f, e.stderr
	release := holdInterrupts()
	err := cmd.Run()
	release()
	if e.ctx.Err() != nil {
		return context.Cause(e.ctx)
	}
	if err != nil {
		// A pager that cannot run must not hide the output.
		_, werr := io.Copy(f, &buf)
		return werr
	}
	return nil
}
