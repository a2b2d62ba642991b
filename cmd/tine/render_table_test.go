package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tinehq/tine/porcelain/compare"
)

// TestPrintTableColoursDeltas: on a terminal a better delta is green and a
// worse one red — higher is better for a metric, lower for cost — and a
// parameter or the event count is never coloured; without colour there is
// no escape at all.
func TestPrintTableColoursDeltas(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tb := &compare.Table{
		Columns: []compare.Column{{Name: "ref", Group: compare.GroupRun}, {Name: "events", Group: compare.GroupRun, Numeric: true},
			{Name: "cost", Group: compare.GroupRun, Numeric: true}, {Name: "accuracy", Group: compare.GroupMetric, Numeric: true}},
		Baseline: &compare.Row{Run: "b", Cells: []compare.Cell{{Text: "heads/main"}, {Text: "1", Value: f(1)}, {Text: "1", Value: f(1)}, {Text: "0.5", Value: f(0.5)}}},
		Rows: []compare.Row{
			{Run: "x", Cells: []compare.Cell{{Text: "experiments/x"}, {Text: "2", Value: f(2), Delta: f(1)}, {Text: "2", Value: f(2), Delta: f(1)}, {Text: "0.9", Value: f(0.9), Delta: f(0.4)}}},
		},
	}
	var buf bytes.Buffer
	p := &printer{w: &buf, color: true}
	printTable(p, tb)
	out := buf.String()
	for _, want := range []string{styleRed + "2 (+1)" + styleReset, styleGreen + "0.9 (+0.4)" + styleReset, "heads/main (baseline)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in\n%s", want, out)
		}
	}
	if strings.Count(out, styleRed)+strings.Count(out, styleGreen) != 2 {
		t.Fatalf("the events delta is coloured:\n%q", out)
	}
	buf.Reset()
	printTable(&printer{w: &buf}, tb)
	if strings.Contains(buf.String(), "\x1b") {
		t.Fatalf("colour without a terminal:\n%q", buf.String())
	}
}

// TestCSVKeepsFormulasInert: a recorded value or metric name a
// spreadsheet would run as a formula is quoted; numbers are not.
func TestCSVKeepsFormulasInert(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tb := &compare.Table{
		Columns: []compare.Column{{Name: "ref"}, {Name: "=cmd()", Group: compare.GroupMetric, Numeric: true}, {Name: "param.x", Group: compare.GroupParam}},
		Rows:    []compare.Row{{Cells: []compare.Cell{{Text: "heads/main"}, {Text: "-1", Value: f(-1)}, {Text: "@SUM(A1)"}}}},
	}
	var buf bytes.Buffer
	if err := writeTableCSV(&buf, tb); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "ref,'=cmd(),param.x\nheads/main,-1,'@SUM(A1)\n"; got != want {
		t.Fatalf("csv %q, want %q", got, want)
	}
}
