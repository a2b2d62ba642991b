package view

import (
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// Layout is a graph drawn in lanes, exactly as git log --graph (and tine
// log --graph) draws it: the rows are runs.RenderGraph's lines, each
// turned from characters into lane coordinates for a canvas.
type Layout struct {
	Rows []LayoutRow `json:"rows"`
	// Lanes is the widest row's number of lanes.
	Lanes int `json:"lanes"`
	// EventRow is the row of each event, indexed like Graph.Events.
	EventRow []int `json:"-"`
}

// LayoutRow is one row: the event drawn on it (Node, -1 for a row of
// connectors only) in lane Lane, and the line segments crossing it.
type LayoutRow struct {
	Node int `json:"n"`
	Lane int `json:"l"`
	// Segs are [top lane, bottom lane, part]: a line from the row's top
	// edge in one lane to its bottom edge in another, or for part
	// SegToNode (SegFromNode) only the upper (lower) half, into (out of)
	// the row's node.
	Segs [][3]int `json:"s"`
}

// Parts of a segment.
const (
	SegFull     = 0
	SegToNode   = 1
	SegFromNode = 2
)

// NewLayout lays out g's events in lanes.
func NewLayout(g *Graph) *Layout {
	lines := runs.RenderGraph(g.nodes)
	l := &Layout{Rows: make([]LayoutRow, len(lines)), EventRow: make([]int, len(g.nodes))}
	// A node's lane goes on below it when it has a parent drawn, and
	// reaches it from above when it has a child drawn; the characters
	// alone cannot say (a root followed by a new tip in the same lane
	// draws "*" over "*", as git does).
	present := make(map[objects.OID]bool, len(g.nodes))
	for _, n := range g.nodes {
		present[n.ID] = true
	}
	hasChild := make(map[objects.OID]bool, len(g.nodes))
	hasParent := make([]bool, len(g.nodes))
	for k, n := range g.nodes {
		for _, p := range n.Parents {
			if present[p] {
				hasChild[p] = true
				hasParent[k] = true
			}
		}
	}
	for i, gl := range lines {
		row := LayoutRow{Node: gl.Node, Segs: [][3]int{}}
		s := gl.Graph
		if w := (len(s) + 1) / 2; w > l.Lanes {
			l.Lanes = w
		}
		for k := 0; k < len(s); k++ {
			lane := k / 2
			switch s[k] {
			case '|':
				row.Segs = append(row.Segs, [3]int{lane, lane, SegFull})
			case '/':
				row.Segs = append(row.Segs, [3]int{lane + 1, lane, SegFull})
			case '\\':
				row.Segs = append(row.Segs, [3]int{lane, lane + 1, SegFull})
			case '*':
				row.Lane = lane
				if hasChild[g.nodes[gl.Node].ID] {
					row.Segs = append(row.Segs, [3]int{lane, lane, SegToNode})
				}
				if hasParent[gl.Node] {
					row.Segs = append(row.Segs, [3]int{lane, lane, SegFromNode})
				}
			}
		}
		if gl.Node >= 0 {
			l.EventRow[gl.Node] = i
		}
		l.Rows[i] = row
	}
	return l
}
