package main

import (
	"fmt"

	"github.com/tinehq/tine/porcelain/runs"
)

// forkCmd is `tine fork REF --from EVENT [--ref experiments/NAME] [--reason TEXT]`.
type forkCmd struct {
	Source string `arg:"" name:"run" help:"Run to fork: ref, oid, prefix, REF~N or REF@{n}."`
	From   string `name:"from" required:"" placeholder:"EVENT" help:"Event to fork at (oid or unique prefix); the fork keeps its ancestors."`
	Ref    string `name:"ref" placeholder:"REF" help:"New ref (default experiments/<source>-<event prefix>); must not exist."`
	Reason string `name:"reason" placeholder:"TEXT" help:"Why, recorded in forked_from."`
	Switch bool   `name:"switch" help:"Make the fork the current run (tine switch), so record, log and show act on it."`
	jsonFlag
}

// Help shows an example under `tine fork --help`.
func (c *forkCmd) Help() string {
	return `Creates a run holding the fork event and its ancestor closure (parents and
causal links; events are shared by oid, nothing is copied), with
forked_from {run, event, reason}, on a new ref. Continue it with
tine record --ref NEWREF.

Example:

    $ tine fork heads/main --from 3f9a2c71d0e4 --ref experiments/retry --reason "flaky test"
    $ tine fork main --from main~2 --switch`
}

// Run creates the fork.
func (c *forkCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := runs.Fork(e.ctx, r, runs.ForkOptions{Source: c.Source, From: c.From, Ref: c.Ref, Reason: c.Reason})
	if err != nil {
		return err
	}
	if c.Switch {
		if _, err := runs.Switch(e.ctx, r, runs.SwitchOptions{Ref: res.Ref}); err != nil {
			return fmt.Errorf("forked onto %s, but switching to it failed: %w", res.Ref, err)
		}
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("forked %s at %s onto %s (run %s, %d events)\n", c.Source, shortOID(res.FromEvent), res.Ref, shortOID(res.Run), res.Events)
		if c.Switch {
			p.printf("switched to %s; continue with: tine record -- CMD ARGS...\n", res.Ref)
			return
		}
		p.printf("continue with: tine record --ref %s -- CMD ARGS...\n", res.Ref)
	})
}
