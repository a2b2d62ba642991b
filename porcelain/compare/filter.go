package compare

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Filter operators.
const (
	OpEq      = "="
	OpNe      = "!="
	OpLt      = "<"
	OpLe      = "<="
	OpGt      = ">"
	OpGe      = ">="
	OpGlob    = "~"
	OpNotGlob = "!~"
)

// ops in the order they are tried at a position: two-character first.
var ops = []string{OpLe, OpGe, OpNe, OpNotGlob, "==", OpLt, OpGt, OpEq, OpGlob}

// Filter is one parsed --filter expression: COLUMN OP VALUE.
//
//	=, !=     equal (numerically when both sides are numbers, else as text)
//	<, <=, >, >=  numeric comparison; the column must be numeric
//	~, !~     the cell matches (or not) a glob (path.Match: * stops at /;
//	          for ref, any of the run's refs matching MatchRef counts)
//
// For the ref column, = and != also look at every ref naming the run.
//
// A row whose cell is empty holds only for != and !~.
type Filter struct {
	Expr   string `json:"expr"`
	Column string `json:"column"`
	Op     string `json:"op"`
	Value  string `json:"value"`

	num   float64
	isNum bool
	col   int
	isRef bool
}

// ParseFilter parses COLUMN OP VALUE ("accuracy>=0.9", "status=completed",
// "ref~experiments/tune/*"); "==" is the same as "=".
func ParseFilter(expr string) (Filter, error) {
	i := strings.IndexAny(expr, "<>=!~")
	if i < 0 {
		return Filter{}, fmt.Errorf("%w %s: want COLUMN OP VALUE with OP one of = != < <= > >= ~ !~", ErrBadFilter, quoteCut(expr))
	}
	f := Filter{Expr: expr, Column: strings.TrimSpace(expr[:i])}
	for _, op := range ops {
		if strings.HasPrefix(expr[i:], op) {
			f.Op, f.Value = op, strings.TrimSpace(expr[i+len(op):])
			break
		}
	}
	if f.Op == "==" {
		f.Op = OpEq
	}
	switch {
	case f.Op == "":
		return Filter{}, fmt.Errorf("%w %s: %q is not an operator (= != < <= > >= ~ !~)", ErrBadFilter, quoteCut(expr), expr[i:i+1])
	case f.Column == "":
		return Filter{}, fmt.Errorf("%w %s: no column before %s", ErrBadFilter, quoteCut(expr), f.Op)
	case strings.ContainsAny(f.Value, "<>=") && f.Op != OpGlob && f.Op != OpNotGlob:
		return Filter{}, fmt.Errorf("%w %s: more than one operator", ErrBadFilter, quoteCut(expr))
	}
	f.num, f.isNum = parseNumber(f.Value)
	switch f.Op {
	case OpLt, OpLe, OpGt, OpGe:
		if !f.isNum {
			return Filter{}, fmt.Errorf("%w %s: %s needs a number, not %s", ErrBadFilter, quoteCut(expr), f.Op, quoteCut(f.Value))
		}
	case OpGlob, OpNotGlob:
		if _, err := path.Match(f.Value, ""); err != nil {
			return Filter{}, fmt.Errorf("%w %s: bad glob %s", ErrBadFilter, quoteCut(expr), quoteCut(f.Value))
		}
	}
	return f, nil
}

// bind resolves the filter's column in t.
func (f *Filter) bind(t *Table) error {
	i, err := t.ResolveColumn(f.Column)
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrBadFilter, quoteCut(f.Expr), err)
	}
	switch f.Op {
	case OpLt, OpLe, OpGt, OpGe:
		if !t.Columns[i].Numeric && t.Columns[i].Group != GroupParam {
			return fmt.Errorf("%w %s: column %s holds text; use = != ~ !~", ErrBadFilter, quoteCut(f.Expr), t.Columns[i].Name)
		}
	}
	f.col, f.isRef = i, t.Columns[i].Name == ColRef
	return nil
}

// holds reports whether row r passes the filter.
func (f *Filter) holds(r *Row) bool {
	c := r.Cells[f.col]
	if c.Text == "" {
		return f.Op == OpNe || f.Op == OpNotGlob
	}
	switch f.Op {
	case OpEq, OpNe:
		eq := c.Text == f.Value
		if c.Value != nil && f.isNum {
			eq = *c.Value == f.num
		}
		if f.isRef {
			eq = slices.Contains(r.Refs, f.Value)
		}
		return eq == (f.Op == OpEq)
	case OpGlob, OpNotGlob:
		ok, _ := path.Match(f.Value, c.Text)
		if f.isRef {
			// A run named by several refs matches when any of them does,
			// and a glob matches the refs under what it names.
			ok = slices.ContainsFunc(r.Refs, func(n string) bool { return MatchRef(f.Value, n) })
		}
		return ok == (f.Op == OpGlob)
	}
	if c.Value == nil {
		return false
	}
	v := *c.Value
	switch f.Op {
	case OpLt:
		return v < f.num
	case OpLe:
		return v <= f.num
	case OpGt:
		return v > f.num
	default:
		return v >= f.num
	}
}

// parseNumber reads a finite decimal number.
func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// MatchRef reports whether ref name matches glob (path.Match: * does not
// cross /), either whole or by a leading run of its components, as git's
// for-each-ref patterns do: experiments/* matches experiments/tune/a.
func MatchRef(glob, name string) bool {
	for i := len(name); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		if ok, _ := path.Match(glob, name[:i]); ok {
			return true
		}
	}
	return false
}
