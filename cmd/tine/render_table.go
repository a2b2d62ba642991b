package main

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/porcelain/compare"
)

// The runs table's three renderings: aligned text (deltas coloured on a
// terminal), CSV and Markdown. Recorded text is untrusted: every cell is
// sanitized (no control or bidi characters) before it is printed.

// tableCells returns the header and the rows' cell texts, the baseline
// first, each numeric cell followed by its delta when there is one.
func tableCells(t *compare.Table) ([]string, [][]string, [][]float64) {
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = sanitize(c.Name)
	}
	rows := withBaseline(t)
	out := make([][]string, len(rows))
	deltas := make([][]float64, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r.Cells))
		deltas[i] = make([]float64, len(r.Cells))
		for j, cell := range r.Cells {
			out[i][j] = sanitize(cell.Text)
			if cell.Delta != nil {
				deltas[i][j] = *cell.Delta
				out[i][j] += " (" + signedDelta(*cell.Delta) + ")"
			}
		}
		if t.Baseline != nil && i == 0 && len(out[i]) > 0 {
			out[i][0] += " (baseline)"
		}
	}
	return head, out, deltas
}

// withBaseline returns the rows to print: the baseline first, then the
// other rows (the baseline's own row is not repeated).
func withBaseline(t *compare.Table) []compare.Row {
	if t.Baseline == nil {
		return t.Rows
	}
	out := []compare.Row{*t.Baseline}
	for _, r := range t.Rows {
		if r.Run != t.Baseline.Run {
			out = append(out, r)
		}
	}
	return out
}

// signedDelta spells a delta with its sign.
func signedDelta(f float64) string {
	if f >= 0 {
		return "+" + compare.FormatNumber(f)
	}
	return compare.FormatNumber(f)
}

// printTable renders aligned columns; on a terminal a delta is green when
// it is better (a higher score, a lower cost, tokens or duration) and red
// when worse.
func printTable(p *printer, t *compare.Table) {
	if len(t.Rows) == 0 && t.Baseline == nil {
		p.printf("no runs\n")
		return
	}
	head, rows, deltas := tableCells(t)
	width := make([]int, len(head))
	for j, h := range head {
		width[j] = utf8.RuneCountInString(h)
		for _, r := range rows {
			width[j] = max(width[j], utf8.RuneCountInString(r[j]))
		}
	}
	line := func(cells []string, style func(j int, s string) string) {
		var b strings.Builder
		for j, s := range cells {
			if j > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(s))
			if t.Columns[j].Numeric {
				b.WriteString(pad + style(j, s))
			} else if j < len(cells)-1 {
				b.WriteString(style(j, s) + pad)
			} else {
				b.WriteString(style(j, s))
			}
		}
		p.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	line(head, func(_ int, s string) string { return p.dim(s) })
	for i, r := range rows {
		line(r, func(j int, s string) string {
			d := deltas[i][j]
			if d == 0 {
				return s
			}
			if lowerIsBetter(t.Columns[j]) {
				d = -d
			}
			if t.Columns[j].Group != compare.GroupMetric && !lowerIsBetter(t.Columns[j]) {
				return s
			}
			if d > 0 {
				return p.good(s)
			}
			return p.bad(s)
		})
	}
}

// lowerIsBetter names the meters a run should spend less of.
func lowerIsBetter(c compare.Column) bool {
	return c.Name == compare.ColCost || c.Name == compare.ColTokens || c.Name == compare.ColDuration
}

// writeTableCSV writes the header and rows; with a baseline each numeric
// column is followed by NAME_delta.
func writeTableCSV(w io.Writer, t *compare.Table) error {
	cw := csv.NewWriter(w)
	var head []string
	for _, c := range t.Columns {
		// Metric and parameter names are recorded text too.
		head = append(head, csvSafe(c.Name))
		if t.Baseline != nil && c.Numeric {
			head = append(head, csvSafe(c.Name+"_delta"))
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range withBaseline(t) {
		var rec []string
		for j, cell := range r.Cells {
			rec = append(rec, csvSafe(cell.Text))
			if t.Baseline != nil && t.Columns[j].Numeric {
				d := ""
				if cell.Delta != nil {
					d = compare.FormatNumber(*cell.Delta)
				}
				rec = append(rec, d)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvSafe keeps a recorded value from being read as a formula by a
// spreadsheet (OWASP CSV injection): a leading = + - @ gets a quote mark,
// unless the value is a number.
func csvSafe(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// printTableMD renders a GitHub-flavoured Markdown table.
func printTableMD(p *printer, t *compare.Table) {
	head, rows, _ := tableCells(t)
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "|", `\|`) }
	var b strings.Builder
	b.WriteString("|")
	for _, h := range head {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for _, c := range t.Columns {
		if c.Numeric {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, s := range r {
			b.WriteString(" " + esc(s) + " |")
		}
		b.WriteString("\n")
	}
	p.printf("%s", b.String())
}
