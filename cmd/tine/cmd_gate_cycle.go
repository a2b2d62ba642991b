package main

import (
	"strings"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateCycleCmd is `tine gate cycle NAME [--json]`.
type gateCycleCmd struct {
	gateProject
	Name string `arg:"" name:"loop" help:"Loop name from the contract's loops."`
	Goal string `name:"goal" placeholder:"TEXT" help:"Set the loop's goal (kept for later cycles)."`
	jsonFlag
}

// Help shows an example under `tine gate cycle --help`.
func (c *gateCycleCmd) Help() string {
	return `Performs one journaled transition of a convergence loop: runs the gate
for the loop's phase (or, while waiting inside the interval, reuses the last
result without running anything), counts the repair the previous transition
asked for, and decides the next state under the loop's repair,
unchanged-result and duration budgets. The journal lives in the repository
(gate/loops/NAME.json). Exit codes: 0 passed, 10 repair, 11 waiting,
12 human_required, 13 budget_exhausted, 14 error, 15 challenge, 16 verify
(see tine gate challenge).

Example:

    $ tine gate cycle completion --json
    {"state": "repair", "blocking_constraints": ["tests"], ...}`
}

// Run performs the transition.
func (c *gateCycleCmd) Run(e *env) error {
	r, err := e.openRepo()
	var res *gates.CycleResult
	if err == nil {
		defer r.Close()
		res, err = gates.RunCycle(e.ctx, r, c.Name, gates.CycleOptions{Root: c.Project, Goal: c.Goal})
	}
	if err != nil {
		res = gates.CycleErrorResult(c.Name, err)
	}
	if err := e.emit(c.JSON, res, func(p *printer) { printCycle(p, res) }); err != nil {
		return err
	}
	if code := res.ExitCode(); code != 0 {
		return &silentError{code: code}
	}
	return nil
}

// printCycle renders one transition for humans.
func printCycle(p *printer, res *gates.CycleResult) {
	state := res.State
	if state == gates.CyclePassed {
		state = p.good(state)
	} else {
		state = p.bad(state)
	}
	p.printf("loop %s: %s (observation %d, repair attempt %d)\n", res.Loop, state, res.Observation, res.RepairAttempt)
	if len(res.BlockingConstraints) > 0 {
		p.printf("blocking: %s\n", strings.Join(res.BlockingConstraints, ", "))
	}
	if res.WakeAfterSeconds > 0 {
		p.printf("wake after: %gs\n", res.WakeAfterSeconds)
	}
	p.printf("next: %s\n", res.NextAction)
}
