package main

import (
	"io"

	"github.com/tinehq/tine/porcelain/view"
)

// graphCmd is `tine graph [REV...|--all] --format mermaid|dot|json`.
type graphCmd struct {
	Revs   []string `arg:"" optional:"" name:"run" help:"Runs to draw: ref, oid, prefix, REF~N or REF@{n} (default heads/main)."`
	All    bool     `name:"all" help:"Every ref's run, as one DAG sharing events by oid."`
	Format string   `name:"format" required:"" enum:"mermaid,dot,json" placeholder:"mermaid|dot|json" help:"Output format: mermaid (a flowchart for Markdown), dot (Graphviz) or json."`
}

// Help shows examples under `tine graph --help`.
func (c *graphCmd) Help() string {
	return `Writes the event DAG of the chosen runs for READMEs and docs: one box
per event (kind, label, exit code, score), lines from parents to
children (a fork is an event with children in several runs), and one
box per run under its tips with its ref, status, where it was forked
from and its evaluation scores. Recorded text is escaped for the format.

Mermaid refuses diagrams of more than 500 edges: past that the graph is
drawn with linear chains collapsed into one "N events" box, and if it
is still over 500 edges (or 50,000 characters) tine graph refuses and
names --format dot, which has no limit.

Examples:

    $ tine graph --all --format mermaid > docs/runs.mmd
    $ tine graph heads/main experiments/retry --format dot | dot -Tsvg > runs.svg
    $ tine graph --format json`
}

// Run writes the graph.
func (c *graphCmd) Run(e *env) error {
	if c.All && len(c.Revs) > 0 {
		return usagef("name runs or give --all, not both")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	g, err := view.BuildGraph(e.ctx, r, view.GraphOptions{Revs: c.Revs, All: c.All})
	if err != nil {
		return err
	}
	switch c.Format {
	case "json":
		return writeJSON(e.stdout, e.verb, g)
	case "dot":
		_, err = io.WriteString(e.stdout, view.DOT(g))
		return err
	}
	text, err := view.Mermaid(g)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, text)
	return err
}
