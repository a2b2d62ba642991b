package compare

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// rowData is one run before it becomes cells.
type rowData struct {
	run     objects.OID
	refs    []string
	sum     index.RunSummary
	metrics map[string]float64
	gates   map[string]string
	// label, for the baseline only, replaces the ref cell: what
	// --baseline named (see Build).
	label string
}

// tableBuilder collects rows from the catalog.
type tableBuilder struct {
	ctx     context.Context
	cat     *index.Catalog
	trust   Trust
	getter  objects.Getter
	rows    []*rowData
	metrics map[string]bool
	params  map[string]bool
}

// runs returns the distinct runs the table shows, in namespace order
// (heads/, experiments/, promotions/, remotes/), each by ref name.
func (b *tableBuilder) runs(remotes bool) []objects.OID {
	ns := slices.Clone(refNamespaces)
	if remotes {
		ns = append(ns, refs.NamespaceRemotes)
	}
	seen := map[objects.OID]bool{}
	var out []objects.OID
	for _, n := range ns {
		for _, e := range b.cat.RunsByRef(string(n)) {
			if !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e.ID)
			}
		}
	}
	return out
}

// addRun adds the row of run id from its catalog summary.
func (b *tableBuilder) addRun(id objects.OID) error {
	sum, ok := b.cat.RunSummary(id)
	if !ok {
		return nil // the catalog names it as a ref target, so unreachable
	}
	d, err := b.scores(id)
	if err != nil {
		return err
	}
	d.run, d.sum, d.refs = id, sum, b.cat.RefsOf(id)
	b.note(d)
	b.rows = append(b.rows, d)
	return nil
}

// note records the metric and parameter names of d.
func (b *tableBuilder) note(d *rowData) {
	if b.metrics == nil {
		b.metrics, b.params = map[string]bool{}, map[string]bool{}
	}
	for name := range d.metrics {
		b.metrics[name] = true
	}
	for _, p := range d.sum.Params {
		b.params[p.Name] = true
	}
}

// scores finds the newest trusted score of each metric and the newest
// trusted decision of each gate contract among run's attestations.
func (b *tableBuilder) scores(run objects.OID) (*rowData, error) {
	d := &rowData{metrics: map[string]float64{}, gates: map[string]string{}}
	type pick struct {
		at    string
		value float64
	}
	newestScore := map[string]pick{}
	type gatePick struct{ at, decision string }
	newestGate := map[string]gatePick{}
	for _, a := range b.cat.AttestationsFor(run) {
		if a.Kind != index.KindEvaluation && a.Kind != index.KindGate {
			continue
		}
		ok, err := b.trust.Trusted(b.ctx, b.getter, a)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if a.Kind == index.KindEvaluation {
			for _, s := range a.Scores {
				cur, seen := newestScore[s.Name]
				if !seen || newer(a.SignedAt, cur.at, s.Value, cur.value) {
					newestScore[s.Name] = pick{a.SignedAt, s.Value}
				}
			}
			continue
		}
		contract, _ := a.Field("contract_name")
		if contract == "" {
			contract, _ = a.Field("contract")
		}
		decision, _ := a.Field("decision")
		// The later signing time wins; on a tie (unsigned gates carry no
		// time) a failing decision outranks a passing one.
		cur, seen := newestGate[contract]
		if !seen || a.SignedAt > cur.at || a.SignedAt == cur.at && cur.decision == "pass" && decision != "pass" {
			newestGate[contract] = gatePick{a.SignedAt, decision}
		}
	}
	for name, p := range newestScore {
		d.metrics[name] = p.value
	}
	for k, v := range newestGate {
		d.gates[k] = v.decision
	}
	return d, nil
}

// newer reports whether a score signed at at (value v) replaces the one
// signed at curAt (value cur): the later signing time wins (tine writes
// RFC 3339 UTC, which orders as text); an unsigned evaluation carries no
// time and counts as older than any signed one; on equal times the higher
// value wins, as `tine candidates` picks.
func newer(at, curAt string, v, cur float64) bool {
	if at != curAt {
		return at > curAt
	}
	return v > cur
}

// baseline returns the row data of the baseline run: from the catalog when
// a ref names it, else read from the store (a run no ref names).
func (b *tableBuilder) baseline(ctx context.Context, r *plumbing.Repo, id objects.OID) (*rowData, error) {
	d, err := b.scores(id)
	if err != nil {
		return nil, err
	}
	d.run, d.refs = id, b.cat.RefsOf(id)
	if sum, ok := b.cat.RunSummary(id); ok {
		d.sum = sum
		return d, nil
	}
	run, err := runs.LoadRun(ctx, r.Objects(), id)
	if err != nil {
		return nil, fmt.Errorf("runs: --baseline: %w", err)
	}
	t := run.Totals()
	d.sum = index.RunSummary{Run: id, Status: run.Status, Events: t.Events, Missing: t.Missing, Cost: t.Cost, Duration: t.Duration, Tokens: t.Tokens}
	merged := map[string]string{}
	for _, e := range run.Events {
		if e.Missing {
			continue
		}
		for _, p := range index.EventParams(e.Value) {
			merged[p.Name] = p.Value
		}
	}
	for k, v := range merged {
		d.sum.Params = append(d.sum.Params, index.Param{Name: k, Value: v})
	}
	slices.SortFunc(d.sum.Params, func(x, y index.Param) int { return cmp.Compare(x.Name, y.Name) })
	return d, nil
}

// columns returns the table's columns: the run's own, then the metrics,
// gate and promotions, then the parameters, each group sorted by name.
func (b *tableBuilder) columns() []Column {
	cols := []Column{{ColRef, GroupRun, false}, {ColRun, GroupRun, false}, {ColStatus, GroupRun, false},
		{ColEvents, GroupRun, true}, {ColCost, GroupRun, true}, {ColTokens, GroupRun, true}, {ColDuration, GroupRun, true}}
	for _, name := range sortedKeys(b.metrics) {
		cols = append(cols, Column{name, GroupMetric, true})
	}
	cols = append(cols, Column{ColGate, GroupRun, false}, Column{ColPromotions, GroupRun, false})
	for _, name := range sortedKeys(b.params) {
		cols = append(cols, Column{ParamPrefix + name, GroupParam, false})
	}
	return cols
}

// table turns the collected rows into cells, with deltas against base.
func (b *tableBuilder) table(base *rowData) *Table {
	if base != nil {
		b.note(base)
	}
	t := &Table{Columns: b.columns(), Rows: make([]Row, 0, len(b.rows))}
	for _, d := range b.rows {
		t.Rows = append(t.Rows, d.row(t.Columns))
	}
	if base != nil {
		br := base.row(t.Columns)
		if base.label != "" {
			br.Ref, br.Cells[0].Text = base.label, base.label // ColRef is always the first column
		}
		t.Baseline = &br
		for i := range t.Rows {
			deltas(t.Columns, &t.Rows[i], &br)
		}
	}
	return t
}

// row spells d's cells for cols.
func (d *rowData) row(cols []Column) Row {
	r := Row{Refs: d.refs, Run: d.run.String(), Cells: make([]Cell, len(cols))}
	if r.Refs == nil {
		r.Refs = []string{}
	}
	r.Ref = firstRef(d.refs)
	params := map[string]string{}
	for _, p := range d.sum.Params {
		params[p.Name] = p.Value
	}
	for i, c := range cols {
		switch {
		case c.Name == ColRef:
			r.Cells[i] = Cell{Text: r.Ref}
		case c.Name == ColRun:
			r.Cells[i] = Cell{Text: runs.ShortString(r.Run)}
		case c.Name == ColStatus:
			r.Cells[i] = Cell{Text: d.sum.Status}
		case c.Name == ColEvents:
			r.Cells[i] = numCell(float64(d.sum.Events))
		case c.Name == ColCost:
			r.Cells[i] = numCell(d.sum.Cost)
		case c.Name == ColTokens:
			r.Cells[i] = numCell(d.sum.Tokens)
		case c.Name == ColDuration:
			// Milliseconds are the precision a table of runs needs; Value
			// keeps the exact sum.
			r.Cells[i] = numCell(d.sum.Duration)
			r.Cells[i].Text = FormatNumber(math.Round(d.sum.Duration*1000) / 1000)
		case c.Name == ColGate:
			r.Cells[i] = Cell{Text: gateText(d.gates)}
		case c.Name == ColPromotions:
			r.Cells[i] = Cell{Text: promotions(d.refs)}
		case c.Group == GroupMetric:
			if v, ok := d.metrics[c.Name]; ok {
				r.Cells[i] = numCell(v)
			}
		case c.Group == GroupParam:
			if v, ok := params[strings.TrimPrefix(c.Name, ParamPrefix)]; ok {
				r.Cells[i] = paramCell(v)
			}
		}
	}
	return r
}

// paramCell is a parameter's cell: numeric when its text is a number, so
// parameters sort and filter by value.
func paramCell(v string) Cell {
	c := Cell{Text: v}
	if f, ok := parseNumber(v); ok {
		c.Value = &f
	}
	return c
}

// deltas sets each numeric column's difference to the baseline's
// (parameters are settings, not results: they get none).
func deltas(cols []Column, r, base *Row) {
	for i := range r.Cells {
		x, y := r.Cells[i].Value, base.Cells[i].Value
		if x != nil && y != nil && cols[i].Numeric {
			d := *x - *y
			if cols[i].Name == ColDuration {
				d = math.Round(d*1000) / 1000 // the cell's own precision
			}
			r.Cells[i].Delta = &d
		}
	}
}

// firstRef prefers a heads/ or experiments/ ref over a promotion.
func firstRef(names []string) string {
	for _, n := range names {
		if !strings.HasPrefix(n, "promotions/") {
			return n
		}
	}
	if len(names) > 0 {
		return names[0]
	}
	return ""
}

// promotions lists the promotion names among a run's refs.
func promotions(names []string) string {
	var out []string
	for _, n := range names {
		if p, ok := strings.CutPrefix(n, "promotions/"); ok {
			out = append(out, p)
		}
	}
	return strings.Join(out, ",")
}

// gateText is the gate decision: alone when one contract was gated, else
// "contract:decision" per contract.
func gateText(g map[string]string) string {
	if len(g) == 1 {
		for _, v := range g {
			return v
		}
	}
	var out []string
	for _, k := range sortedKeys(g) {
		out = append(out, k+":"+g[k])
	}
	return strings.Join(out, ",")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
