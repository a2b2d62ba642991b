package view

import (
	"fmt"
	"strconv"
)

// newDrawing lays out g as boxes: one per event ("e<i>", i its index in
// g.Events), one per run ("r<j>") hanging off its tips, and lines from
// each event to its children. With collapse, every maximal chain of two
// or more events that have one parent and one child, name no ref, are no
// fork point and did not fail is drawn as one box ("c<k>", "N events").
func newDrawing(g *Graph, collapse bool) *drawing {
	pos := make(map[string]int, len(g.Events))
	for i := range g.Events {
		pos[g.Events[i].Event] = i
	}
	parents := make([][]int, len(g.Events))
	children := make([]int, len(g.Events))
	for i := range g.Events {
		for _, p := range g.Events[i].Parents {
			if j, ok := pos[p]; ok && !containsInt(parents[i], j) {
				parents[i] = append(parents[i], j)
				children[j]++
			}
		}
	}
	keep := make([]bool, len(g.Events)) // drawn as its own box
	for i := range keep {
		keep[i] = true
	}
	if collapse {
		special := map[string]bool{}
		for _, r := range g.Runs {
			for _, t := range r.Tips {
				special[t] = true
			}
			if r.ForkedFrom != nil {
				special[r.ForkedFrom.Event] = true
			}
		}
		for i := range g.Events {
			le := &g.Events[i]
			bad := le.Error != "" || le.Missing || le.ExitCode != nil && *le.ExitCode != 0
			keep[i] = len(parents[i]) != 1 || children[i] != 1 || special[le.Event] || len(le.Refs) > 0 || bad
		}
	}
	// box[i] is the box event i is drawn in. Events are children first,
	// so a chain is met at its newest event and followed to its parents.
	box := make([]string, len(g.Events))
	d := &drawing{}
	chains := 0
	for i := range g.Events {
		if box[i] != "" {
			continue
		}
		chain := []int{i}
		if !keep[i] {
			for j := parents[i][0]; !keep[j] && box[j] == ""; j = parents[j][0] {
				chain = append(chain, j)
			}
		}
		if len(chain) < 2 {
			box[i] = "e" + strconv.Itoa(i)
			d.nodes = append(d.nodes, drawNode{id: box[i], lines: eventLines(&g.Events[i]), class: eventClass(i, g)})
			continue
		}
		id := "c" + strconv.Itoa(chains)
		chains++
		for _, j := range chain {
			box[j] = id
		}
		d.nodes = append(d.nodes, drawNode{id: id, class: "chain", lines: []string{
			fmt.Sprintf("%d events", len(chain)),
			g.Events[chain[len(chain)-1]].Short + " .. " + g.Events[chain[0]].Short,
		}})
	}
	for i := range g.Events {
		for _, j := range parents[i] {
			if box[i] != box[j] {
				d.edges = append(d.edges, drawEdge{from: box[j], to: box[i]})
			}
		}
	}
	for k := range g.Runs {
		gr := &g.Runs[k]
		id := "r" + strconv.Itoa(k)
		class := "ref"
		if c, ok := knownStatus[gr.Status]; ok {
			class = c
		}
		d.nodes = append(d.nodes, drawNode{id: id, lines: runLines(gr), class: class})
		for _, t := range gr.Tips {
			if j, ok := pos[t]; ok {
				d.edges = append(d.edges, drawEdge{from: box[j], to: id, ref: true})
			}
		}
	}
	return d
}

// eventClass styles a failed or missing event.
func eventClass(i int, g *Graph) string {
	le := &g.Events[i]
	switch {
	case le.Missing:
		return "missing"
	case le.Error != "" || le.ExitCode != nil && *le.ExitCode != 0:
		return "bad"
	}
	return ""
}

// containsInt reports whether xs holds x.
func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
