package main

import (
	"fmt"
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
		what = "(beyond the shallow boundary)"
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
