package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
func writeJSON(w io.Writer, command string, result any) error {
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

// wantColor reports whether human output to w should be coloured: only
// when w is a terminal and NO_COLOR is unset or empty (no-color.org).
func wantColor(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
