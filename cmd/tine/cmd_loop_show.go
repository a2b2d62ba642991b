package main

import (
	"github.com/tinehq/tine/porcelain/loops"
)

// loopShowCmd is `tine loop show LOOP [--json]`.
type loopShowCmd struct {
	Loop string `arg:"" name:"loop" help:"Loop name (experiments/LOOP/...)."`
	All  bool   `name:"all" help:"List every iteration (default: the first and last 10)."`
	jsonFlag
}

// Help shows an example under `tine loop show --help`.
func (c *loopShowCmd) Help() string {
	return `Reads a recorded loop back from its branch runs: every iteration in order
with branch, score and observation, the score curve, where the best score
was first reached, and the gate that ended each branch.

Example:

    $ tine loop show t1`
}

// Run shows the loop.
func (c *loopShowCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := loops.LoopShow(e.ctx, r, c.Loop)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printLoopShow(p, res, c.All) })
}

// printLoopShow renders the trajectory.
func printLoopShow(p *printer, res *loops.LoopShowResult, all bool) {
	p.printf("loop %s: %s\n", res.Loop, sanitize(clip(res.Goal, 100)))
	stopped := res.Gate
	if stopped == "" {
		stopped = "(not finished)"
	}
	p.printf("%d iterations, cost %s, %d branches, stopped: %s\n", res.TotalSteps, fmtCost(res.TotalCost), len(res.Branches), stopped)
	p.printf("score curve: %s\n", res.Curve)
	if res.BestScore != nil {
		p.printf("best score %s first reached at iteration %d on %s\n", loopScoreText(*res.BestScore), res.BestFirst, res.BestBranch)
	}
	p.printf("\niterations:\n")
	for i, s := range res.Steps {
		if !all && len(res.Steps) > 20 && i == 10 {
			p.printf("  ... %d more (--all) ...\n", len(res.Steps)-20)
		}
		if !all && len(res.Steps) > 20 && i >= 10 && i < len(res.Steps)-10 {
			continue
		}
		mark := " "
		if s.Best {
			mark = "*"
		}
		p.printf("  %s#%-4d %-10s score %-10s %s\n", mark, s.Iteration, s.Branch, loopScoreText(s.Score), p.dim(sanitize(clip(s.Observation, 70))))
	}
	p.printf("\nbranches:\n")
	for _, b := range res.Branches {
		from := ""
		if b.Parent != "" {
			from = "from " + b.Parent
		}
		gate := b.Gate
		if gate == "" {
			gate = b.Status
		}
		p.printf("  %-10s %-13s %3d steps  %-14s %s\n", b.ID, gate, b.Steps, from, p.dim(sanitize(clip(b.Reason, 60))))
	}
}
