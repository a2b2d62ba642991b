package view

import (
	"fmt"
	"strings"
)

// Mermaid's default limits (its maxEdges and maxTextSize settings): a
// page that embeds a larger diagram shows an error instead of it.
const (
	MermaidMaxEdges    = 500
	MermaidMaxTextSize = 50000
)

// Mermaid writes g as a Mermaid flowchart, oldest events at the top, each
// run's box under its tips. A graph of more than MermaidMaxEdges lines is
// drawn with its linear chains collapsed into one box each ("N events");
// when it is still over MermaidMaxEdges lines or MermaidMaxTextSize
// characters it is refused with ErrTooManyEdges (DOT and JSON have no
// such limit).
func Mermaid(g *Graph) (string, error) {
	d := newDrawing(g, false)
	collapsed := false
	if len(d.edges) > MermaidMaxEdges {
		d, collapsed = newDrawing(g, true), true
	}
	if len(d.edges) > MermaidMaxEdges {
		return "", fmt.Errorf("%w: %d edges with linear chains collapsed, more than mermaid's %d: use --format dot or json, or name fewer runs",
			ErrTooManyEdges, len(d.edges), MermaidMaxEdges)
	}
	var b strings.Builder
	b.WriteString("flowchart TB\n")
	if collapsed {
		fmt.Fprintf(&b, "  %%%% %d events; linear chains collapsed to stay under mermaid's %d edges\n", len(g.Events), MermaidMaxEdges)
	}
	for _, n := range d.nodes {
		open, close := "[\"", "\"]"
		if strings.HasPrefix(n.id, "r") {
			open, close = "([\"", "\"])"
		}
		lines := make([]string, len(n.lines))
		for i, l := range n.lines {
			lines[i] = mermaidText(cleanLine(l))
		}
		fmt.Fprintf(&b, "  %s%s%s%s\n", n.id, open, strings.Join(lines, "<br/>"), close)
	}
	for _, e := range d.edges {
		arrow := "-->"
		if e.ref {
			arrow = "-.-"
		}
		fmt.Fprintf(&b, "  %s %s %s\n", e.from, arrow, e.to)
	}
	byClass := map[string][]string{}
	var classes []string
	for _, n := range d.nodes {
		if n.class == "" {
			continue
		}
		if byClass[n.class] == nil {
			classes = append(classes, n.class)
		}
		byClass[n.class] = append(byClass[n.class], n.id)
	}
	for _, c := range classes {
		fmt.Fprintf(&b, "  classDef %s %s\n", c, mermaidStyles[c])
	}
	for _, c := range classes {
		fmt.Fprintf(&b, "  class %s %s\n", strings.Join(byClass[c], ","), c)
	}
	if b.Len() > MermaidMaxTextSize {
		return "", fmt.Errorf("%w: the diagram is %d characters, more than mermaid's %d: use --format dot or json, or name fewer runs",
			ErrTooManyEdges, b.Len(), MermaidMaxTextSize)
	}
	return b.String(), nil
}

// mermaidStyles are the styles of the classes newDrawing assigns; a
// diagram defines the ones it uses.
var mermaidStyles = map[string]string{
	"bad":          "stroke:#c62828,stroke-width:2px",
	"missing":      "stroke-dasharray:4 3",
	"chain":        "fill:#f3f3f3,stroke:#999",
	"ref":          "fill:#e8eaf6,stroke:#3949ab",
	"st_running":   "fill:#e3f2fd,stroke:#1565c0",
	"st_paused":    "fill:#eeeeee,stroke:#757575",
	"st_completed": "fill:#e8f5e9,stroke:#2e7d32",
	"st_failed":    "fill:#ffebee,stroke:#c62828",
}

// mermaidText escapes recorded text for a quoted Mermaid label: every
// character but ASCII letters, digits, space and ".,:/=+-@" becomes an
// entity code (#60; for "<"), so no quote, bracket, pipe, backtick,
// markdown or HTML in a label can end it or become markup.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(" .,:/=+-@", r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}
