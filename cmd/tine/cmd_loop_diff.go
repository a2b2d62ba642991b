package main

import (
	"github.com/tinehq/tine/porcelain/loops"
)

// loopDiffCmd is `tine loop diff A B [--json]`.
type loopDiffCmd struct {
	A string `arg:"" name:"a" help:"A loop (LOOP) or a branch (LOOP/BRANCH)."`
	B string `arg:"" name:"b" help:"A loop (LOOP) or a branch (LOOP/BRANCH)."`
	jsonFlag
}

// Help shows examples under `tine loop diff --help`.
func (c *loopDiffCmd) Help() string {
	return `Compares two trajectories: a loop's iterations in global order, or one
branch's (its inherited history included). Prints each side's score curve
and convergence (best score, the step that first reached it), how many
leading steps evaluated the same states to the same scores, and the first
step where they diverge.

Examples:

    $ tine loop diff t1 t2
    $ tine loop diff t1/root t1/alt-b12`
}

// Run compares.
func (c *loopDiffCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := loops.LoopDiff(e.ctx, r, c.A, c.B)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printLoopDiff(p, res) })
}

// printLoopDiff renders the comparison.
func printLoopDiff(p *printer, res *loops.LoopDiffResult) {
	for _, side := range []struct {
		label string
		t     *loops.LoopTrajectory
	}{{"a", &res.A}, {"b", &res.B}} {
		t := side.t
		p.printf("%s: %s  %d steps  %s\n", side.label, t.Spec, t.Steps, t.Curve)
		if t.BestScore != nil {
			p.printf("   best %s first reached at step %d (iteration %d), final %s\n",
				loopScoreText(*t.BestScore), t.BestFirst, t.BestIteration, loopScoreText(*t.FinalScore))
		}
	}
	p.printf("shared: %d step(s) (%d the same events)\n", res.Shared, res.SharedEvents)
	if res.DivergeAt == 0 {
		p.printf("identical trajectories\n")
	} else {
		p.printf("diverge at step %d:\n", res.DivergeAt)
		for _, at := range []struct {
			label string
			s     *loops.LoopStep
		}{{"a", res.AtA}, {"b", res.AtB}} {
			if at.s == nil {
				p.printf("  %s: (ended)\n", at.label)
				continue
			}
			p.printf("  %s: #%d %s score %s %s\n", at.label, at.s.Iteration, at.s.Branch, loopScoreText(at.s.Score), p.dim(sanitize(clip(at.s.Observation, 60))))
		}
	}
	if res.BestDelta != nil {
		p.printf("best delta (b - a): %s; faster to its best: %s\n", loopScoreText(*res.BestDelta), res.Faster)
	}
}
