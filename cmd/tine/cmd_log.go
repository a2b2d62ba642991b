package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/tinehq/tine/porcelain/runs"
)

// logCmd is `tine log [REV] [--all] [--graph] [--oneline] [-n N] [--json]`.
type logCmd struct {
	Rev     string `arg:"" optional:"" name:"run" help:"Run to list: ref, oid, prefix, REF~N or REF@{n} (default heads/main)."`
	All     bool   `name:"all" help:"Every ref's run, as one DAG sharing events by oid."`
	Graph   bool   `name:"graph" help:"Draw the event DAG with lanes, forks as branches."`
	Oneline bool   `name:"oneline" help:"One short line per event."`
	Limit   int    `name:"max-count" short:"n" placeholder:"N" help:"Show at most N events."`
	jsonFlag
}

// Help shows examples under `tine log --help`.
func (c *logCmd) Help() string {
	return `Lists events newest first with kind, model or tool, cost, duration and
score; refs are shown at their tips. Paged through $PAGER (default
"less -FRX") on a terminal.

Examples:

    $ tine log
    $ tine log experiments/retry -n 5 --oneline
    $ tine log --graph --all`
}

// Run lists the events.
func (c *logCmd) Run(e *env) error {
	if c.JSON && (c.Oneline || c.Graph) {
		if c.Oneline {
			return usagef("--oneline has no effect with --json")
		}
	}
	if c.Limit < 0 {
		return usagef("-n must be at least 0")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := runs.Log(e.ctx, r, runs.LogOptions{Rev: c.Rev, All: c.All, Graph: c.Graph, Limit: c.Limit})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, e.verb, res)
	}
	return e.page(func(p *printer) { printLog(p, res, c.Oneline) })
}

// printLog renders the entries, with the graph drawing when present.
func printLog(p *printer, res *runs.LogResult, oneline bool) {
	if len(res.Entries) == 0 {
		p.printf("%s\n", p.dim("(no events)"))
		return
	}
	if res.Graph == nil {
		for i := range res.Entries {
			printEntry(p, "", &res.Entries[i], oneline)
		}
		return
	}
	for _, gl := range res.Graph {
		if gl.Node < 0 {
			p.printf("%s\n", gl.Graph)
			continue
		}
		printEntry(p, gl.Graph+" ", &res.Entries[gl.Node], oneline)
	}
}

// printEntry renders one event: short oid, refs, kind and label, then the
// metrics that are set.
func printEntry(p *printer, prefix string, le *runs.LogEntry, oneline bool) {
	var b strings.Builder
	b.WriteString(p.style(styleYellow, le.Short))
	if len(le.Refs) > 0 {
		b.WriteString(" (" + p.style(styleGreen, strings.Join(le.Refs, ", ")) + ")")
	}
	what := le.Kind
	if le.Label != "" && le.Label != le.Kind {
		what += " " + le.Label
	}
	if le.Missing {
		what = "(not stored locally)"
	}
	b.WriteString(" " + sanitize(what))
	if le.ExitCode != nil {
		s := fmt.Sprintf("exit %d", *le.ExitCode)
		if *le.ExitCode != 0 {
			s = p.bad(s)
		}
		b.WriteString(" " + s)
	}
	if le.Cost != 0 {
		b.WriteString(" " + fmtCost(le.Cost))
	}
	if le.Duration != 0 {
		b.WriteString(" " + fmtDuration(le.Duration))
	}
	if le.Tokens != 0 {
		b.WriteString(fmt.Sprintf(" %.0f tok", le.Tokens))
	}
	if le.Score != nil {
		b.WriteString(fmt.Sprintf(" score %g", *le.Score))
	}
	if le.Error != "" && !oneline {
		b.WriteString(" " + p.bad("error: "+sanitize(clip(le.Error, 80))))
	}
	p.printf("%s%s\n", prefix, b.String())
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
// a terminal (recorded data must not drive the terminal).
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
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
	if !ok || !isTerminal(f) || strings.TrimSpace(pager) == "" || strings.TrimSpace(pager) == "cat" {
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
	cmd := exec.CommandContext(e.ctx, "sh", "-c", pager)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &buf, f, e.stderr
	if err := cmd.Run(); err != nil {
		// A pager that cannot run must not hide the output.
		_, werr := io.Copy(f, &buf)
		return werr
	}
	return nil
}

// isTerminal reports whether f is a character device.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
