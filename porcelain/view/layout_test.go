package view_test

import (
	"slices"
	"testing"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/view"
)

// TestLayoutIsLogGraph: the rows are log --graph --all's lines, each node
// in the lane of its "*", each "|", "/" and "\" a segment.
func TestLayoutIsLogGraph(t *testing.T) {
	r := fixture(t)
	g, err := view.BuildGraph(t.Context(), r, view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	l := view.NewLayout(g)
	log, err := runs.Log(t.Context(), r, runs.LogOptions{All: true, Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rows) != len(log.Graph) || l.Lanes != 2 {
		t.Fatalf("%d rows, %d lanes; log --graph draws %d lines", len(l.Rows), l.Lanes, len(log.Graph))
	}
	for i, gl := range log.Graph {
		row := l.Rows[i]
		if row.Node != gl.Node {
			t.Fatalf("row %d: node %d, log has %d", i, row.Node, gl.Node)
		}
		strokes := 0
		for k, c := range gl.Graph {
			switch c {
			case '*':
				if row.Lane != k/2 {
					t.Fatalf("row %d %q: lane %d", i, gl.Graph, row.Lane)
				}
			case '|', '/', '\\':
				strokes++
			}
		}
		full := 0
		for _, s := range row.Segs {
			if s[2] == view.SegFull {
				full++
			}
		}
		if full != strokes {
			t.Fatalf("row %d %q: %d full segments for %d strokes: %v", i, gl.Graph, full, strokes, row.Segs)
		}
		if row.Node >= 0 && g.Events[row.Node].Event != log.Entries[row.Node].Event {
			t.Fatalf("row %d: event order differs from log's", i)
		}
	}
	// The newest event reaches nothing above; the root nothing below.
	top, last := l.Rows[0], l.Rows[len(l.Rows)-1]
	if slices.ContainsFunc(top.Segs, func(s [3]int) bool { return s[2] == view.SegToNode }) ||
		slices.ContainsFunc(last.Segs, func(s [3]int) bool { return s[2] == view.SegFromNode }) {
		t.Fatalf("tip %v, root %v", top.Segs, last.Segs)
	}
}

// TestLayoutUnrelatedRunsDoNotConnect: a root followed by the tip of an
// unrelated run in the same lane ("*" over "*", as git draws it) gets no
// line between them.
func TestLayoutUnrelatedRunsDoNotConnect(t *testing.T) {
	r := runstest.NewRepo(t)
	runstest.AppendEvent(t, r, "heads/a", `{"kind":"a","time_unix":1767323046}`, nil)
	runstest.AppendEvent(t, r, "heads/b", `{"kind":"b","time_unix":1767323045}`, nil)
	g, err := view.BuildGraph(t.Context(), r, view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	l := view.NewLayout(g)
	if len(l.Rows) != 2 || l.Rows[0].Lane != 0 || l.Rows[1].Lane != 0 {
		t.Fatalf("rows %+v", l.Rows)
	}
	for i, row := range l.Rows {
		if len(row.Segs) != 0 {
			t.Fatalf("row %d (%s) has segments %v", i, g.Events[row.Node].Kind, row.Segs)
		}
	}
}
