package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
)

// logCmd is `tine log [REV] [--all] [--graph] [--oneline] [-n N] [--json]`.
type logCmd struct {
	Rev     string `arg:"" optional:"" name:"run" help:"Run to list: ref, oid, prefix, REF~N or REF@{n} (default the current run, tine switch, else heads/main)."`
	All     bool   `name:"all" help:"Every ref's run, as one DAG sharing events by oid."`
	Graph   bool   `name:"graph" help:"Draw the event DAG with lanes, forks as branches."`
	Oneline bool   `name:"oneline" help:"One short line per event."`
	Limit   int    `name:"max-count" short:"n" placeholder:"N" help:"Show at most N events (0, the default, shows all)."`
	jsonFlag
}

// logDirectEnv set to 1 makes log --all read every run and event instead
// of the catalog: the same output, slower; a check of the catalog.
const logDirectEnv = "TINE_LOG_DIRECT"

// bigLog is the size of a log --all from which collecting the catalog's
// memory before printing pays: below it a collection costs more CPU than
// the few MiB it keeps from the peak.
const bigLog = 8192

// Help shows examples under `tine log --help`.
func (c *logCmd) Help() string {
	return `Lists events newest first with kind, model or tool, cost, duration and
score; refs are shown at their tips. Below each event: its time (UTC) and,
for a command tine record ran, its argv, shortened. --oneline prints one
short line per event. Without RUN: the current run (tine switch), else
heads/main. Paged through $PAGER (default "less -FRX") on a terminal.

Examples:

    $ tine log
    $ tine log experiments/retry -n 5 --oneline
    $ tine log --graph --all`
}

// The collector's target and soft memory limit during log --all.
const (
	logAllGCPercent   = 300
	logAllMemoryLimit = 60 << 20
)

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
	if !c.All {
		if c.Rev, err = runs.RefOrCurrent(r, c.Rev); err != nil {
			return err
		}
	}
	if c.All {
		// --all may first bring the catalog up to date, reading every
		// new run (the first log --all after a 1,000-branch loop reads
		// 1,000 runs): at the default target the collector ran a fifth
		// of that time for a small live heap. 300% within 60 MiB took
		// such a log from 1.2 s to 0.86 s, 50 to 63 MiB, and a 30,000-event
		// graph from 0.09 s to 0.08 s of CPU.
		defer raiseGCWithin(logAllGCPercent, logAllMemoryLimit)()
	}
	direct := e.getenv != nil && e.getenv(logDirectEnv) == "1"
	res, err := runs.Log(e.ctx, r, runs.LogOptions{Rev: c.Rev, All: c.All, Graph: c.Graph, Limit: c.Limit, Direct: direct})
	if err != nil {
		return err
	}
	if c.All && len(res.Entries) >= bigLog {
		// --all let go of the catalog it was served from (most of its
		// memory: tens of MiB at 30,000 events); collecting now sets the
		// heap's next target from what is printed, so the rendering's
		// garbage reuses that memory instead of growing the process.
		runtime.GC()
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
		beyond := 0
		for i := range res.Entries {
			if res.Entries[i].Missing {
				beyond++ // a shallow fetch left it out: summarised below
				continue
			}
			printEntry(p, "", &res.Entries[i], oneline)
		}
		if beyond > 0 {
			p.printf("%s\n", p.dim(fmt.Sprintf("-- stopped at the shallow boundary: %s not stored here (tine fetch --deepen N brings them)", count(beyond, "older event"))))
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

// Widths of a recorded command in log output.
const (
	commandChars        = 72
	onelineCommandChars = 40
)

// printEntry renders one event: short oid, refs, kind and label, then the
// metrics that are set; below it, indented, the event's time (UTC) and a
// recorded command's argv, shortened. With oneline it is one short line
// (printOneline).
func printEntry(p *printer, prefix string, le *runs.LogEntry, oneline bool) {
	if oneline {
		printOneline(p, prefix, le)
		return
	}
	var b strings.Builder
	b.WriteString(entryHead(p, le, commandChars))
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
	if le.Error != "" {
		b.WriteString(" " + p.bad("error: "+sanitize(clip(le.Error, 80))))
	}
	p.printf("%s%s\n", prefix, b.String())
	var d []string
	if le.TimeUnix != nil {
		d = append(d, fmtEventTime(*le.TimeUnix))
	}
	if le.Command != "" {
		d = append(d, "$ "+sanitize(clip(le.Command, commandChars)))
	}
	if len(d) > 0 {
		p.printf("%s    %s\n", continuation(prefix, len(le.Parents) > 0), p.dim(strings.Join(d, "  ")))
	}
}

// printOneline renders one event on one short line: short oid, refs, then
// the recorded command shortened (else kind and label), a failing exit
// code, a score.
func printOneline(p *printer, prefix string, le *runs.LogEntry) {
	var b strings.Builder
	if le.Command != "" && !le.Missing {
		// A recorded command says more than "tool shell".
		b.WriteString(p.style(styleYellow, le.Short))
		if len(le.Refs) > 0 {
			b.WriteString(" (" + p.style(styleGreen, strings.Join(le.Refs, ", ")) + ")")
		}
		b.WriteString(" $ " + sanitize(clip(le.Command, onelineCommandChars)))
	} else {
		b.WriteString(entryHead(p, le, onelineCommandChars))
	}
	if le.ExitCode != nil && *le.ExitCode != 0 {
		b.WriteString(" " + p.bad(fmt.Sprintf("exit %d", *le.ExitCode)))
	}
	if le.Score != nil {
		b.WriteString(fmt.Sprintf(" score %g", *le.Score))
	}
	p.printf("%s%s\n", prefix, b.String())
}

// entryHead is the start of an event's line: short oid, refs, kind and
// label, the last two (recorded text) cut at width characters as a
// recorded command is.
func entryHead(p *printer, le *runs.LogEntry, width int) string {
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
	b.WriteString(" " + sanitize(clip(what, width)))
	return b.String()
}

// continuation is the prefix of an entry's second line: the graph's lanes
// go on ("*" becomes "|", or nothing below a root); other prefixes become
// blanks.
func continuation(prefix string, hasParents bool) string {
	if strings.ContainsRune(prefix, '*') {
		lane := "|"
		if !hasParents {
			lane = " "
		}
		return strings.TrimRight(strings.Replace(prefix, "*", lane, 1), " ")
	}
	return strings.Repeat(" ", len(prefix))
}

// fmtEventTime renders an event's time_unix in UTC to the second.
func fmtEventTime(unix float64) string {
	return time.Unix(0, int64(unix*1e9)).UTC().Format("2006-01-02 15:04:05Z")
}
