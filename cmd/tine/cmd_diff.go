package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// diffCmd is `tine diff A B [--exit-code] [--stat] [--text] [--json]`.
type diffCmd struct {
	A        string `arg:"" name:"a" help:"First run: ref, oid, prefix, REF~N, REF@{n}, or a .tine file (read in memory, nothing written)."`
	B        string `arg:"" name:"b" help:"Second run, named the same ways."`
	ExitCode bool   `name:"exit-code" help:"Exit 1 when the runs differ (their event sets are not equal), 0 when they are the same: a CI gate."`
	Stat     bool   `name:"stat" help:"Print a short summary only."`
	Text     bool   `name:"text" help:"Add unified diffs of the stdout and stderr blobs of aligned events."`
	jsonFlag
}

// Help shows examples under `tine diff --help`.
func (c *diffCmd) Help() string {
	return `Compares two runs as event sets: the events both hold (the common
ancestor is the newest of them), the events only one holds, divergent
events aligned step by step with the fields that changed (kind, model,
tool, command, exit code, error, cost, duration, usage, blobs), the
change in total cost, duration, tokens and score (b minus a), and each
run's tool path: whole, or, when the paths start with more than ` + strconv.Itoa(runs.ShortSharedSteps) + `
steps in common, that count and each run's steps after them (--json
holds both whole paths). Divergent events are aligned by the longest common
subsequence of (kind, tool or model, program); the rest pair by position.

Exit status: 0 on success; with --exit-code, 0 when the runs hold the
same events and 1 when they differ.

Examples:

    $ tine diff heads/main experiments/retry
    $ tine diff main~1 main --text
    $ tine diff heads/main experiments/retry --stat
    $ tine diff v1 v2 --exit-code >/dev/null || echo "the runs differ"`
}

// Run diffs the runs.
func (c *diffCmd) Run(e *env) error {
	switch {
	case c.Stat && c.Text:
		return usagef("--text has no effect with --stat")
	case c.Stat && c.JSON:
		return usagef("--stat has no effect with --json (the JSON holds every field)")
	}
	r, err := e.openRepo()
	if err != nil && !(trust.IsArtifactPath(c.A) && trust.IsArtifactPath(c.B)) {
		return err
	}
	if r != nil {
		defer r.Close()
	}
	// Only the JSON holds the whole lists of common events and tool
	// paths; the human outputs count them, at the cost of what diverged.
	res, err := trust.DiffTargets(e.ctx, r, c.A, c.B, runs.DiffOptions{Text: c.Text, Brief: !c.JSON})
	if err != nil {
		return err
	}
	if c.JSON {
		err = writeJSON(e.stdout, e.verb, res)
	} else {
		err = e.page(func(p *printer) {
			if c.Stat {
				printDiffStat(p, res)
			} else {
				printDiff(p, res)
			}
		})
	}
	if err != nil {
		return err
	}
	if c.ExitCode && !res.Identical {
		return &silentError{code: exitFailure}
	}
	return nil
}

// diffSideName is how a side is named in headers: its revision, with the
// run oid.
func diffSideName(s runs.DiffSide) string {
	name := s.Revision
	if s.Ref != "" && s.Ref != s.Revision {
		name += " (" + s.Ref + ")"
	}
	if !s.Stored {
		name += ", derived"
	}
	return name
}

// printDiff renders the whole diff.
func printDiff(p *printer, res *runs.DiffResult) {
	p.printf("a: %s %s, %d events\n", p.style(styleYellow, res.A.Run), diffSideName(res.A), res.A.Totals.Events)
	p.printf("b: %s %s, %d events\n", p.style(styleYellow, res.B.Run), diffSideName(res.B), res.B.Totals.Events)
	if res.CommonAncestor != "" {
		p.printf("common ancestor: %s (%d shared events)\n", p.style(styleYellow, shortOID(res.CommonAncestor)), res.CommonCount)
	} else {
		p.printf("common ancestor: none (no shared events)\n")
	}
	if res.Identical {
		p.printf("%s: the runs hold the same %d events\n", p.good("same"), res.CommonCount)
		return
	}
	printDiffLegend(p)
	printBriefs(p, "only in a", "-", res.OnlyA)
	printBriefs(p, "only in b", "+", res.OnlyB)
	if len(res.Aligned) > 0 {
		p.printf("\naligned (%d):\n", len(res.Aligned))
		for _, ap := range res.Aligned {
			printAligned(p, ap)
		}
	}
	p.printf("\ntotals (a -> b):\n")
	printDeltas(p, res)
	printToolPaths(p, res.ToolPaths)
}

// printToolPaths renders the tool paths: whole when they share few steps,
// else the count of shared steps and each path's steps after them (a
// fork of a long run would otherwise print the shared steps twice).
func printToolPaths(p *printer, v runs.ToolPathView) {
	mark := ""
	if !v.Changed() {
		mark = p.dim(" (unchanged)")
	}
	if v.Shared <= runs.ShortSharedSteps {
		p.printf("\ntool path:\n")
		p.printf("  a: %s\n  b: %s%s\n", sanitize(joinSteps(v.Head, v.A)), sanitize(joinSteps(v.Head, v.B)), mark)
		return
	}
	if !v.Changed() {
		p.printf("\ntool path: %d steps in both%s\n", v.Shared, mark)
		return
	}
	p.printf("\ntool path: %d shared steps, then\n", v.Shared)
	p.printf("  a: %s\n  b: %s\n", sanitize(stepsAfter(v.A)), sanitize(stepsAfter(v.B)))
}

// joinSteps spells the whole path: head, then steps, space-separated.
func joinSteps(head, steps []string) string {
	return spellSteps(append(append(make([]string, 0, len(head)+len(steps)), head...), steps...))
}

// stepsAfter spells the steps a path takes after the shared ones.
func stepsAfter(steps []string) string {
	if len(steps) == 0 {
		return "(no more steps)"
	}
	return spellSteps(steps)
}

// spellSteps joins steps with spaces, a run of events beyond the shallow
// boundary as one count: a shallow clone of a long run would otherwise
// print "(missing)" once per event it does not store.
func spellSteps(steps []string) string {
	var b strings.Builder
	for i := 0; i < len(steps); {
		if i > 0 {
			b.WriteByte(' ')
		}
		n := 0
		for i+n < len(steps) && steps[i+n] == runs.MissingStep {
			n++
		}
		switch {
		case n == 0:
			b.WriteString(steps[i])
			i++
			continue
		case n == 1:
			b.WriteString("(1 event beyond the shallow boundary)")
		default:
			fmt.Fprintf(&b, "(%d events beyond the shallow boundary)", n)
		}
		i += n
	}
	return b.String()
}

// printDiffLegend explains the markers of the event lists below it.
func printDiffLegend(p *printer) {
	p.printf("%s\n", p.dim("legend: - only in a   + only in b   = aligned, the same step (kind, model or tool, program)"))
	p.printf("%s\n", p.dim("        ~ aligned by position, a different step   [n] index in its run, from 0"))
}

// printBriefs lists divergent events under a heading.
func printBriefs(p *printer, heading, sign string, evs []runs.EventBrief) {
	if len(evs) == 0 {
		return
	}
	p.printf("\n%s (%d):\n", heading, len(evs))
	style := styleGreen
	if sign == "-" {
		style = styleRed
	}
	for _, b := range evs {
		p.printf("  %s [%d] %s %s\n", p.style(style, sign), b.Position, p.style(styleYellow, shortOID(b.OID)), briefText(b))
	}
}

// briefText describes an event: kind, label and command.
func briefText(b runs.EventBrief) string {
	if b.Missing {
		return "(beyond the shallow boundary)"
	}
	s := b.Kind
	if b.Label != "" && b.Label != b.Kind {
		s += " " + b.Label
	}
	if b.Command != "" {
		s += ": " + clip(b.Command, 60)
	}
	return sanitize(s)
}

// printAligned renders one aligned pair and its changed fields.
func printAligned(p *printer, ap runs.AlignedPair) {
	sym := "~"
	if ap.Alignment == runs.AlignMatched {
		sym = "="
	}
	p.printf("  %s a[%d] %s  <->  b[%d] %s\n", sym, ap.A.Position, shortOID(ap.A.OID), ap.B.Position, shortOID(ap.B.OID))
	p.printf("      %s\n", p.dim(briefText(ap.A)+"  |  "+briefText(ap.B)))
	for _, ch := range ap.Changes {
		old, new := diffValue(ch.Field, ch.Old), diffValue(ch.Field, ch.New)
		if old == new {
			continue // below display precision (a duration of 1ms both times)
		}
		p.printf("      %s: %s -> %s\n", ch.Field, old, new)
	}
	for _, bd := range ap.Text {
		d := bd.Diff
		switch {
		case d.Binary:
			p.printf("      %s: binary blobs differ (%d -> %d bytes)\n", bd.Field, d.OldSize, d.NewSize)
		case d.TooLarge:
			p.printf("      %s: too large to diff (%d -> %d bytes)\n", bd.Field, d.OldSize, d.NewSize)
		case d.Unified != "":
			printUnified(p, "      ", d.Unified, 0)
		}
	}
}

// printUnified writes a unified diff indented, coloured on a terminal,
// with control characters removed; maxLines > 0 cuts it short.
func printUnified(p *printer, indent, text string, maxLines int) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		if maxLines > 0 && i == maxLines {
			p.printf("%s%s\n", indent, p.dim(fmt.Sprintf("... %d more lines", len(lines)-maxLines)))
			return
		}
		l = sanitize(l)
		switch {
		case strings.HasPrefix(l, "@@"):
			l = p.style(styleYellow, l)
		case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
			l = p.style(styleGreen, l)
		case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
			l = p.style(styleRed, l)
		}
		p.printf("%s%s\n", indent, l)
	}
}

// diffValue renders a changed field's value.
func diffValue(field string, v any) string {
	switch x := v.(type) {
	case nil:
		return "(none)"
	case float64:
		switch field {
		case "cost":
			return fmtCost(x)
		case "duration":
			return fmtDuration(x)
		}
		return fmtNumber(x)
	case string:
		if strings.HasSuffix(field, "_blob") {
			return shortOID(x)
		}
		return sanitize(clip(x, 100))
	}
	return sanitize(fmt.Sprint(v))
}

// fmtNumber renders a number without float noise (six significant
// decimals).
func fmtNumber(f float64) string {
	r := math.Round(f*1e6) / 1e6
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// signed renders a delta with its sign.
func signed(s string, f float64) string {
	if f > 0 || (f == 0 && !strings.HasPrefix(s, "-")) {
		return "+" + s
	}
	return s
}

// printDeltas renders the totals of both sides and their difference.
func printDeltas(p *printer, res *runs.DiffResult) {
	a, b, d := res.A.Totals, res.B.Totals, res.Delta
	p.printf("  events    %d -> %d (%s)\n", a.Events, b.Events, signed(strconv.Itoa(d.Events), float64(d.Events)))
	// Cost and tokens only mean something for runs that meter them (model
	// steps); recorded commands have neither.
	if a.Cost != 0 || b.Cost != 0 {
		p.printf("  cost      %s -> %s (%s)\n", fmtCost(a.Cost), fmtCost(b.Cost), signedMoney(d.Cost))
	}
	p.printf("  duration  %s -> %s (%s)\n", fmtDuration(a.Duration), fmtDuration(b.Duration), signedDuration(d.Duration))
	if a.Tokens != 0 || b.Tokens != 0 {
		p.printf("  tokens    %s -> %s (%s)\n", fmtNumber(a.Tokens), fmtNumber(b.Tokens), signed(fmtNumber(d.Tokens), d.Tokens))
	}
	if res.A.Score != nil || res.B.Score != nil {
		delta := "n/a"
		if d.Score != nil {
			delta = signed(fmtNumber(*d.Score), *d.Score)
		}
		p.printf("  score     %s -> %s (%s)\n", scoreText(res.A.Score), scoreText(res.B.Score), delta)
	}
}

func signedMoney(f float64) string {
	if f < 0 {
		return "-" + fmtCost(-f)
	}
	return "+" + fmtCost(f)
}

func signedDuration(f float64) string {
	if f < 0 {
		return "-" + fmtDuration(-f)
	}
	return "+" + fmtDuration(f)
}

func scoreText(s *float64) string {
	if s == nil {
		return "(none)"
	}
	return fmtNumber(*s)
}

// printDiffStat renders the short summary of --stat.
func printDiffStat(p *printer, res *runs.DiffResult) {
	changed := 0
	for _, ap := range res.Aligned {
		if len(ap.Changes) > 0 {
			changed++
		}
	}
	verdict := p.bad("differ")
	if res.Identical {
		verdict = p.good("same")
	}
	p.printf("%s..%s: %s\n", diffSideName(res.A), diffSideName(res.B), verdict)
	p.printf(" %d common, %d only in a, %d only in b, %d aligned (%d changed)\n", res.CommonCount, len(res.OnlyA), len(res.OnlyB), len(res.Aligned), changed)
	d := res.Delta
	line := fmt.Sprintf(" events %s, cost %s, duration %s, tokens %s", signed(strconv.Itoa(d.Events), float64(d.Events)), signedMoney(d.Cost), signedDuration(d.Duration), signed(fmtNumber(d.Tokens), d.Tokens))
	if d.Score != nil {
		line += ", score " + signed(fmtNumber(*d.Score), *d.Score)
	}
	if res.ToolPathChanged {
		line += "; tool path changed"
		if n := res.ToolPaths.Shared; n > 0 {
			line += fmt.Sprintf(" after %d shared steps", n)
		}
	}
	p.printf("%s\n", line)
}
