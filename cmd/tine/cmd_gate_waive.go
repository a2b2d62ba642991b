package main

import (
	"context"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/gates"
)

// gateWaiveCmd is `tine gate waive ID --reason TEXT`.
type gateWaiveCmd struct {
	gateProject
	ID     string `arg:"" name:"id" help:"Constraint id."`
	Reason string `name:"reason" required:"" help:"Why this exact failing result is acceptable."`
	jsonFlag
}

// Help shows an example under `tine gate waive --help`.
func (c *gateWaiveCmd) Help() string {
	return `Binds a waiver to the exact fresh evidence event of a deterministic
constraint (not a rubric). Any change to the watched files, the contract or
the checkout voids it; gate ci and the push phase ignore it.

Example:

    $ tine gate waive lint --reason "upstream false positive, tracked in #42"`
}

// Run records the waiver.
func (c *gateWaiveCmd) Run(e *env) error {
	return gateNote(e, c.gateProject, c.ID, c.Reason, c.JSON, gates.GateWaive, "Waived %s locally for input %s\nCI ignores local waivers; a release policy accepts a gate passed by a waiver only with allow_waived.\n")
}

// gateAcknowledgeCmd is `tine gate acknowledge ID --reason TEXT`.
type gateAcknowledgeCmd struct {
	gateProject
	ID     string `arg:"" name:"id" help:"Constraint id (advisory)."`
	Reason string `name:"reason" required:"" help:"Why the advisory result is accepted."`
	jsonFlag
}

// Help shows an example under `tine gate acknowledge --help`.
func (c *gateAcknowledgeCmd) Help() string {
	return `Records a reason for an advisory constraint's fresh non-pass result.
It never changes a verdict.

Example:

    $ tine gate acknowledge docs --reason "docs follow in the next change"`
}

// Run records the acknowledgement.
func (c *gateAcknowledgeCmd) Run(e *env) error {
	return gateNote(e, c.gateProject, c.ID, c.Reason, c.JSON, gates.GateAcknowledge, "Acknowledged %s for input %s\n")
}

// gateNote runs a waiver or acknowledgement verb.
func gateNote(e *env, pf gateProject, id, reason string, asJSON bool,
	fn func(context.Context, *plumbing.Repo, gates.GateNoteOptions) (*gates.GateNoteResult, error), format string) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := fn(e.ctx, r, gates.GateNoteOptions{Root: pf.Project, ID: id, Reason: reason})
	if err != nil {
		return err
	}
	return e.emit(asJSON, res, func(p *printer) { p.printf(format, res.ID, res.InputDigest[:12]) })
}
