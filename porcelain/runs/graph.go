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
	// Lanes hold small numbers, not oids: keys[k] numbers nodes[k].ID (a
	// repeated id keeps its first number) and parents are numbered alike.
	num := make(map[objects.OID]int32, len(nodes))
	keys := make([]int32, len(nodes))
	for k, n := range nodes {
		v, ok := num[n.ID]
		if !ok {
			v = int32(k)
			num[n.ID] = v
		}
		keys[k] = v
	}
	parents := make([][]int32, len(nodes))
	for k, n := range nodes {
		for _, p := range n.Parents {
			if v, ok := num[p]; ok && !containsInt32(parents[k], v) {
				parents[k] = append(parents[k], v)
			}
		}
	}
	return renderLanes(keys, parents)
}

// renderLanes is RenderGraph over numbered nodes: node k is keys[k] (k
// itself when keys is nil) and parents[k] are the numbers of its parents
// among the nodes, unique, in parent order.
func renderLanes(keys []int32, parents [][]int32) []GraphLine {
	lr := &laneRenderer{lines: make([]GraphLine, 0, len(parents)+len(parents)/8)}
	var cols []int32
	var idx []int
	for k := range parents {
		key := int32(k)
		if keys != nil {
			key = keys[k]
		}
		idx = idx[:0]
		for i, c := range cols {
			if c == key {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			cols = append(cols, key)
			idx = append(idx, len(cols)-1)
		}
		c := idx[0]
		if len(idx) > 1 {
			// Lanes waiting for the same event join it: draw them
			// moving left into lane c, then drop them (idx is
			// ascending, so idx[1:] are the lanes right of c).
			targets := lr.ints(&lr.targets, len(cols))
			next, r := 0, 1
			for j := range cols {
				if r < len(idx) && idx[r] == j {
					targets[j] = c
					r++
					continue
				}
				targets[j] = next
				next++
			}
			starts := lr.ints(&lr.starts, len(cols))
			for j := range starts {
				starts[j] = j
			}
			lr.shiftLeft(starts, targets)
			w, r := 0, 1
			for j, id := range cols {
				if r < len(idx) && idx[r] == j {
					r++
					continue
				}
				cols[w] = id
				w++
			}
			cols = cols[:w]
		}
		lr.lines = append(lr.lines, GraphLine{Graph: lr.nodeLine(len(cols), c), Node: k})
		ps := parents[k]
		if len(ps) == 0 {
			// The lane ends: the lanes right of it move one left.
			n := len(cols) - 1
			targets := lr.ints(&lr.targets, n)
			starts := lr.ints(&lr.starts, n)
			for j := range n {
				targets[j], starts[j] = j, j
				if j >= c {
					starts[j] = j + 1
				}
			}
			cols = append(cols[:c], cols[c+1:]...)
			lr.shiftLeft(starts, targets)
			continue
		}
		cols[c] = ps[0]
		for m, p := range ps[1:] {
			at := c + m + 1
			lr.lines = append(lr.lines, GraphLine{Graph: openLine(len(cols), at-1), Node: -1})
			cols = append(cols, 0)
			copy(cols[at+1:], cols[at:])
			cols[at] = p
		}
	}
	return lr.lines
}

// laneRenderer holds what renderLanes reuses from line to line: the lines
// drawn, scratch slices and the node lines already spelled (a history of
// 30,000 events has a few dozen distinct ones).
type laneRenderer struct {
	lines           []GraphLine
	targets, starts []int
	pos             []int
	buf             []byte
	nodeLines       [][]string
}

// ints returns (*s)[:n], grown when needed.
func (lr *laneRenderer) ints(s *[]int, n int) []int {
	if cap(*s) < n {
		*s = make([]int, n, 2*n)
	}
	return (*s)[:n]
}

// nodeLine draws n lanes with the node in lane c.
func (lr *laneRenderer) nodeLine(n, c int) string {
	for len(lr.nodeLines) <= n {
		lr.nodeLines = append(lr.nodeLines, nil)
	}
	row := lr.nodeLines[n]
	if row == nil {
		row = make([]string, n)
		lr.nodeLines[n] = row
	}
	if row[c] == "" {
		b := []byte(strings.Repeat("| ", n))
		b[2*c] = '*'
		row[c] = strings.TrimRight(string(b), " ")
	}
	return row[c]
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

// shiftLeft draws lanes at positions starts moving left one column per
// line until each reaches its target: "|" for a lane in place, "/" for one
// moving. No line is drawn when nothing moves.
func (lr *laneRenderer) shiftLeft(starts, targets []int) {
	pos := lr.ints(&lr.pos, len(starts))
	copy(pos, starts)
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
			return
		}
		b := lr.buf[:0]
		for range 2*width + 2 {
			b = append(b, ' ')
		}
		for j := range pos {
			if pos[j] > targets[j] {
				b[2*pos[j]-1] = '/'
				pos[j]--
			} else if b[2*pos[j]] == ' ' {
				b[2*pos[j]] = '|'
			}
		}
		lr.buf = b
		lr.lines = append(lr.lines, GraphLine{Graph: strings.TrimRight(string(b), " "), Node: -1})
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

// containsInt32 reports whether v is in vs.
func containsInt32(vs []int32, v int32) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
