package runs

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRenderGraphMatchesReference: the lane renderer (numbered nodes,
// reused buffers) draws what the plain drawing below, lanes of oids and
// a map per join, draws, for random DAGs in children-first order with
// merges, repeated parents, absent parents and repeated nodes.
func TestRenderGraphMatchesReference(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 1 + rng.IntN(60)
		ids := make([]objects.OID, n+3)
		for i := range ids {
			ids[i] = objects.OID{Type: objects.TypeEvent, Algo: objects.BLAKE3, Digest: [32]byte{byte(i), byte(i >> 8)}}
		}
		nodes := make([]GraphNode, n)
		for k := range nodes {
			id := ids[k]
			if k > 0 && rng.IntN(30) == 0 {
				id = ids[rng.IntN(k)] // a repeated node
			}
			nodes[k].ID = id
			for range rng.IntN(4) {
				// Parents come later (children first), or are absent.
				nodes[k].Parents = append(nodes[k].Parents, ids[k+1+rng.IntN(n+2-k)])
			}
		}
		if got, want := RenderGraph(nodes), renderReference(nodes); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: drawing differs\ngot:\n%s\nwant:\n%s", seed, drawn(got), drawn(want))
		}
	}
}

// drawn joins a drawing's lines for a failure message.
func drawn(lines []GraphLine) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%-20s %d\n", l.Graph, l.Node)
	}
	return b.String()
}

// renderReference is the plain drawing RenderGraph must match.
func renderReference(nodes []GraphNode) []GraphLine {
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
			starts := make([]int, len(targets))
			for j := range starts {
				starts[j] = j
			}
			lines = append(lines, refShift(starts, targets)...)
			var kept []objects.OID
			for j, id := range cols {
				if !removed[j] {
					kept = append(kept, id)
				}
			}
			cols = kept
		}
		b := []byte(strings.Repeat("| ", len(cols)))
		b[2*c] = '*'
		lines = append(lines, GraphLine{Graph: strings.TrimRight(string(b), " "), Node: k})
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
			var starts []int
			for j := range len(cols) + 1 {
				if j != c {
					starts = append(starts, j)
				}
			}
			lines = append(lines, refShift(starts, targets)...)
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

// refShift draws lanes at starts moving left one column a line to targets.
func refShift(starts, targets []int) []GraphLine {
	pos := append([]int(nil), starts...)
	var lines []GraphLine
	for {
		moving, width := false, 0
		for j := range pos {
			if pos[j] > targets[j] {
				moving = true
			}
			width = max(width, pos[j])
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
