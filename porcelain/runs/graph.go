package runs

import (
	"strings"

	"github.com/tinehq/tine/objects"
)

// GraphNode is one event of a graph to draw: its id and parents.
type GraphNode struct {
	ID      objects.OID
	Parents []objects.OID
}

// GraphLine is one line of a drawn graph: the lane drawing and, for a node
// line, the index of the node in the input (-1 for a connector line).
type GraphLine struct {
	Graph string `json:"graph"`
	Node  int    `json:"node"`
}

// RenderGraph draws nodes, which must be ordered children before parents,
// as git log --graph does: one lane per line of descent, "*" for the node,
// "|" for lanes passing by, "/" where lanes join (a fork point, drawn just
// above the shared event) and "\" where a node with several parents opens
// new lanes. Parents that are not among nodes are ignored. The drawing
// depends only on the input order, so it is deterministic.
func RenderGraph(nodes []GraphNode) []GraphLine {
	present := make(map[objects.OID]bool, len(nodes))
	for _, n := range nodes {
		present[n.ID] = true
	}
	var lines []GraphLine
	var cols []objects.OID
	for k, n := range nodes {
		var idx []int
		for i, c := range cols {
			if c == n.ID {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			cols = append(cols, n.ID)
			idx = []int{len(cols) - 1}
		}
		c := idx[0]
		if len(idx) > 1 {
			// Lanes waiting for the same event join it: draw them
			// moving left into lane c, then drop them.
			removed := map[int]bool{}
			for _, j := range idx[1:] {
				removed[j] = true
			}
			targets := make([]int, len(cols))
			next := 0
			for j := range cols {
				if removed[j] {
					targets[j] = c
					continue
				}
				targets[j] = next
				next++
			}
			lines = append(lines, shiftLeft(targets)...)
			kept := cols[:0:0]
			for j, id := range cols {
				if !removed[j] {
					kept = append(kept, id)
				}
			}
			cols = kept
		}
		lines = append(lines, GraphLine{Graph: nodeLine(len(cols), c), Node: k})
		var parents []objects.OID
		for _, p := range n.Parents {
			if present[p] && !ContainsOID(parents, p) {
				parents = append(parents, p)
			}
		}
		if len(parents) == 0 {
			targets := make([]int, len(cols))
			for j := range cols {
				targets[j] = j
				if j > c {
					targets[j] = j - 1
				}
			}
			cols = append(cols[:c:c], cols[c+1:]...)
			targets = append(targets[:c:c], targets[c+1:]...)
			starts := make([]int, 0, len(targets))
			for j := range len(cols) + 1 {
				if j != c {
					starts = append(starts, j)
				}
			}
			lines = append(lines, shiftLeftFrom(starts, targets)...)
			continue
		}
		cols[c] = parents[0]
		for m, p := range parents[1:] {
			at := c + m + 1
			lines = append(lines, GraphLine{Graph: openLine(len(cols), at-1), Node: -1})
			cols = append(cols[:at], append([]objects.OID{p}, cols[at:]...)...)
		}
	}
	return lines
}

// nodeLine draws n lanes with the node in lane c.
func nodeLine(n, c int) string {
	b := []byte(strings.Repeat("| ", n))
	b[2*c] = '*'
	return strings.TrimRight(string(b), " ")
}

// openLine draws n lanes where lane from opens a new lane to its right and
// every lane right of it moves one to the right.
func openLine(n, from int) string {
	b := []byte(strings.Repeat(" ", 2*n+2))
	for j := 0; j < n; j++ {
		if j <= from {
			b[2*j] = '|'
		} else {
			b[2*j+1] = '\\'
		}
	}
	b[2*from+1] = '\\'
	return strings.TrimRight(string(b), " ")
}

// shiftLeft draws lanes 0..len(targets)-1 moving to their targets.
func shiftLeft(targets []int) []GraphLine {
	starts := make([]int, len(targets))
	for j := range starts {
		starts[j] = j
	}
	return shiftLeftFrom(starts, targets)
}

// shiftLeftFrom draws lanes at positions starts moving left one column per
// line until each reaches its target: "|" for a lane in place, "/" for one
// moving. No line is drawn when nothing moves.
func shiftLeftFrom(starts, targets []int) []GraphLine {
	pos := append([]int(nil), starts...)
	var lines []GraphLine
	for {
		moving, width := false, 0
		for j := range pos {
			if pos[j] > targets[j] {
				moving = true
			}
			if pos[j] > width {
				width = pos[j]
			}
		}
		if !moving {
			return lines
		}
		b := []byte(strings.Repeat(" ", 2*width+2))
		for j := range pos {
			if pos[j] > targets[j] {
				b[2*pos[j]-1] = '/'
				pos[j]--
			} else if b[2*pos[j]] == ' ' {
				b[2*pos[j]] = '|'
			}
		}
		lines = append(lines, GraphLine{Graph: strings.TrimRight(string(b), " "), Node: -1})
	}
}

// ContainsOID reports whether id is in ids.
func ContainsOID(ids []objects.OID, id objects.OID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
