package main

// loopCmd is the `tine loop` group: run, show and diff improvement loops
// recorded as runs (one run per branch under experiments/<loop>/).
type loopCmd struct {
	Run  loopRunCmd  `cmd:"" help:"Run an improvement loop (numeric, text or --step-cmd) and record every branch as a run."`
	Show loopShowCmd `cmd:"" help:"Show a recorded loop: iterations, score curve, best, how each branch ended."`
	Diff loopDiffCmd `cmd:"" help:"Compare two loops or two branches: trajectories, convergence, first divergence."`
}

// Help shows examples under `tine loop --help`.
func (c *loopCmd) Help() string {
	return `Each branch of a loop is a run at experiments/LOOP/BRANCH, the best also at
experiments/LOOP/best; forks share their parent's events by oid.

Examples:

    $ tine loop run --strategy numeric --target 42 --width 2 --max-steps 20 --name t1
    $ tine loop show t1
    $ tine loop diff t1/root t1/alt-b12`
}
