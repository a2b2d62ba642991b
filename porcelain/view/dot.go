package view

import (
	"fmt"
	"strings"
)

// DOT writes g as a Graphviz digraph, oldest events at the top, each run's
// box under its tips; no limit on its size.
func DOT(g *Graph) string {
	d := newDrawing(g, false)
	var b strings.Builder
	b.WriteString("digraph tine {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n")
	for _, n := range d.nodes {
		lines := make([]string, len(n.lines))
		for i, l := range n.lines {
			lines[i] = dotText(cleanLine(l))
		}
		fmt.Fprintf(&b, "  %s [label=\"%s\"%s];\n", n.id, strings.Join(lines, `\n`), dotStyle[n.class])
	}
	for _, e := range d.edges {
		if e.ref {
			fmt.Fprintf(&b, "  %s -> %s [style=dashed, arrowhead=none];\n", e.from, e.to)
			continue
		}
		fmt.Fprintf(&b, "  %s -> %s;\n", e.from, e.to)
	}
	b.WriteString("}\n")
	return b.String()
}

// dotStyle is the attributes of each style class newDrawing assigns.
var dotStyle = map[string]string{
	"bad":          `, color="#c62828", penwidth=2`,
	"missing":      `, style=dashed`,
	"chain":        `, style=filled, fillcolor="#f3f3f3"`,
	"ref":          `, shape=cds, style=filled, fillcolor="#e8eaf6"`,
	"st_running":   `, shape=cds, style=filled, fillcolor="#e3f2fd"`,
	"st_paused":    `, shape=cds, style=filled, fillcolor="#eeeeee"`,
	"st_completed": `, shape=cds, style=filled, fillcolor="#e8f5e9"`,
	"st_failed":    `, shape=cds, style=filled, fillcolor="#ffebee"`,
}

// dotText escapes recorded text for a quoted DOT string: backslash and
// double quote are escaped (so no \N or \l sequence and no end of the
// string), and & becomes &amp; because Graphviz decodes HTML entities in
// labels.
func dotText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "&", "&amp;").Replace(s)
}
