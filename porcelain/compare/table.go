package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// Errors of the compare workflows; the CLI maps ErrBadFilter and
// ErrBadColumn to usage errors (exit 2).
var (
	// ErrBadFilter means a --filter expression does not parse or names a
	// column the table does not have.
	ErrBadFilter = errors.New("bad filter expression")
	// ErrBadColumn means a column named by --sort-by does not exist.
	ErrBadColumn = errors.New("no such column")
)

// Column groups: where a column's values come from.
const (
	GroupRun    = "run"    // ref, run, status, meters, gate, promotions
	GroupMetric = "metric" // the newest trusted evaluation score
	GroupParam  = "param"  // a declared parameter
)

// Fixed column names.
const (
	ColRef        = "ref"
	ColRun        = "run"
	ColStatus     = "status"
	ColEvents     = "events"
	ColCost       = "cost"
	ColTokens     = "tokens"
	ColDuration   = "duration"
	ColGate       = "gate"
	ColPromotions = "promotions"
	// ParamPrefix starts every parameter column's name.
	ParamPrefix = "param."
)

// Column is one column of the runs table.
type Column struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	Numeric bool   `json:"numeric"`
}

// Cell is one value: Text as rendered (empty when the run has none), Value
// for a numeric cell, Delta its difference to the baseline row's value.
type Cell struct {
	Text  string   `json:"text"`
	Value *float64 `json:"value,omitempty"`
	Delta *float64 `json:"delta,omitempty"`
}

// Row is one run: its first ref (heads/ and experiments/ before
// promotions/), every ref naming it, and one cell per column.
type Row struct {
	Ref   string   `json:"ref"`
	Refs  []string `json:"refs"`
	Run   string   `json:"run"`
	Cells []Cell   `json:"cells"`
}

// Table is the runs table: columns, rows in display order, the baseline
// row when one was asked for, and what the catalog load did.
type Table struct {
	Columns  []Column `json:"columns"`
	Rows     []Row    `json:"rows"`
	Baseline *Row     `json:"baseline,omitempty"`
	// Trust says which evaluations the metric columns count.
	Trust string `json:"trust"`
	Index string `json:"index"`
}

// Col returns the position of the column named name, or -1.
func (t *Table) Col(name string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
}

// Cell returns row's cell in column name ("" text when there is none).
func (t *Table) Cell(row *Row, name string) Cell {
	if i := t.Col(name); i >= 0 && i < len(row.Cells) {
		return row.Cells[i]
	}
	return Cell{}
}

// TableOptions configures BuildTable.
type TableOptions struct {
	// Remotes adds the runs remotes/ refs name (tracking refs).
	Remotes bool
	// SortBy is a column name (see ResolveColumn); "" keeps ref order.
	// Desc sorts descending. Empty cells sort last either way.
	SortBy string
	Desc   bool
	// Filters keep the rows every expression holds for (ParseFilter).
	Filters []Filter
	// OnlyChanged drops the columns whose cells are equal in every row
	// (ref and run are always kept); it needs at least two rows.
	OnlyChanged bool
	// Baseline is a revision naming the run the deltas are computed
	// against; "" means no deltas.
	Baseline string
	// Trust decides which evaluations count; nil is TrustAll().
	Trust Trust
}

// refNamespaces are the namespaces whose runs get rows.
var refNamespaces = []refs.Namespace{refs.NamespaceHeads, refs.NamespaceExperiments, refs.NamespacePromotions}

// BuildTable builds the runs table from the derived catalog: one row per
// distinct run named by a ref under heads/, experiments/ or promotions/
// (and remotes/ with Remotes). Meters and parameters come from the
// catalog's run summaries and statuses, so no event is read; only a trust
// rule that checks signatures reads the evaluations it counts back
// through the store, which re-verifies them.
func BuildTable(ctx context.Context, r *plumbing.Repo, opt TableOptions) (*Table, error) {
	cat, rep, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("runs: catalog: %w", err)
	}
	tr := opt.Trust
	if tr == nil {
		tr = TrustAll("")
	}
	b := &tableBuilder{ctx: ctx, cat: cat, trust: tr, getter: r.Objects()}
	runIDs := b.runs(opt.Remotes)
	for _, id := range runIDs {
		if err := b.addRun(id); err != nil {
			return nil, err
		}
	}
	var base *rowData
	if opt.Baseline != "" {
		id, err := r.Resolve(ctx, opt.Baseline)
		if err != nil {
			return nil, fmt.Errorf("runs: --baseline: %w", err)
		}
		// The baseline row names what the user named, not another ref
		// that happens to hold the same run: the ref itself, or the
		// revision as written for a past value (main~1, main@{2}).
		label := ""
		if strings.Contains(opt.Baseline, "~") || strings.Contains(opt.Baseline, "@{") {
			label = opt.Baseline
		} else if _, name, err := r.ResolveRevision(ctx, opt.Baseline); err == nil && name != "" {
			label = name
		}
		if id.Type != objects.TypeRun {
			return nil, fmt.Errorf("runs: --baseline %s names a %s, not a run: %w", opt.Baseline, id.Type, plumbing.ErrBadInput)
		}
		if base, err = b.baseline(ctx, r, id); err != nil {
			return nil, err
		}
		base.label = label
	}
	t := b.table(base)
	t.Trust, t.Index = tr.Describe(), rep.Action
	if err := t.apply(opt); err != nil {
		return nil, err
	}
	return t, nil
}

// apply filters, sorts and prunes the table's columns.
func (t *Table) apply(opt TableOptions) error {
	filters := slices.Clone(opt.Filters)
	for i := range filters {
		if err := filters[i].bind(t); err != nil {
			return err
		}
	}
	kept := t.Rows[:0]
	for i := range t.Rows {
		ok := true
		for j := range filters {
			ok = ok && filters[j].holds(&t.Rows[i])
		}
		if ok {
			kept = append(kept, t.Rows[i])
		}
	}
	t.Rows = kept
	if opt.SortBy != "" {
		col, err := t.ResolveColumn(opt.SortBy)
		if err != nil {
			return err
		}
		t.sortBy(col, opt.Desc)
	}
	if opt.OnlyChanged && len(t.Rows) > 1 {
		// With one row nothing can differ; showing no column would hide
		// the run rather than its constants.
		t.onlyChanged()
	}
	return nil
}

// ResolveColumn finds a column by its name, or a parameter column by the
// parameter's bare name when no other column has that name.
func (t *Table) ResolveColumn(name string) (int, error) {
	if i := t.Col(name); i >= 0 {
		return i, nil
	}
	if i := t.Col(ParamPrefix + name); i >= 0 {
		return i, nil
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return -1, fmt.Errorf("%w %s; the table's columns are %s", ErrBadColumn, quoteCut(name), strings.Join(names, ", "))
}

// sortBy orders rows by column i (stable; empty cells last).
func (t *Table) sortBy(i int, desc bool) {
	numeric := t.Columns[i].Numeric
	slices.SortStableFunc(t.Rows, func(a, b Row) int {
		x, y := a.Cells[i], b.Cells[i]
		switch {
		case x.Text == "" && y.Text == "":
			return 0
		case x.Text == "":
			return 1
		case y.Text == "":
			return -1
		}
		var c int
		if numeric && x.Value != nil && y.Value != nil {
			c = cmpFloat(*x.Value, *y.Value)
		} else {
			c = strings.Compare(x.Text, y.Text)
		}
		if desc {
			c = -c
		}
		return c
	})
}

// onlyChanged drops every column (but ref and run) whose cells all have
// the same text.
func (t *Table) onlyChanged() {
	var keep []int
	for i, c := range t.Columns {
		if c.Name == ColRef || c.Name == ColRun || !allSame(t.Rows, i) {
			keep = append(keep, i)
		}
	}
	cols := make([]Column, len(keep))
	for j, i := range keep {
		cols[j] = t.Columns[i]
	}
	prune := func(r *Row) {
		cells := make([]Cell, len(keep))
		for j, i := range keep {
			cells[j] = r.Cells[i]
		}
		r.Cells = cells
	}
	for i := range t.Rows {
		prune(&t.Rows[i])
	}
	if t.Baseline != nil {
		prune(t.Baseline)
	}
	t.Columns = cols
}

// allSame reports whether column i has one text in every row.
func allSame(rows []Row, i int) bool {
	for _, r := range rows[min(1, len(rows)):] {
		if r.Cells[i].Text != rows[0].Cells[i].Text {
			return false
		}
	}
	return true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FormatNumber spells a cell's number: integers exactly, others with six
// significant digits.
func FormatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// numCell is a numeric cell.
func numCell(f float64) Cell {
	v := f
	return Cell{Text: FormatNumber(f), Value: &v}
}
