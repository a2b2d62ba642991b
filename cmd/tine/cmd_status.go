package main

import "github.com/tinehq/tine/porcelain/runs"

// statusCmd is `tine status [--json]`.
type statusCmd struct {
	jsonFlag
}

// Help shows an example under `tine status --help`.
func (c *statusCmd) Help() string {
	return `Shows the current run (tine switch), or heads/main when none is set: its
ref, run, status, event count and tip events, and whether its ref moved
under it — holds another value than tine last saw (at switch, or after
tine's own record or import from that value), because update-ref, another
tool or a concurrent writer moved it. Reads the run object and its tips
only. Exit 0 either way.

Example:

    $ tine status
    current run: heads/main (run 4fce3139fac7)
    status:      running, 3 events
    tip:         4fce3139fac7 tool shell exit 0 2ms`
}

// Run prints the status.
func (c *statusCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := runs.Status(e.ctx, r)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printStatus(p, res) })
}

// printStatus renders the status.
func printStatus(p *printer, res *runs.StatusResult) {
	what := "current run:"
	if !res.Current {
		what = "no current run; commands default to"
	}
	p.printf("%s %s", what, p.style(styleGreen, res.Ref))
	if !res.Exists {
		p.printf(" (no run yet)\n")
	} else {
		p.printf(" (run %s)\n", shortOID(res.Run))
	}
	if res.Moved {
		seen := "absent"
		if res.Seen != "" {
			seen = shortOID(res.Seen)
		}
		now := "deleted"
		if res.Exists {
			now = shortOID(res.Run)
		}
		p.printf("%s\n", p.bad("moved:       "+res.Ref+" held "+seen+" at switch or tine's last own write, now "+now+" (tine switch "+res.Ref+" accepts it)"))
	}
	if !res.Exists {
		return
	}
	if res.Status != "" {
		p.printf("status:      %s, %d events\n", res.Status, res.Events)
	}
	for i := range res.Tips {
		printEntry(p, "tip:         ", &res.Tips[i], true)
	}
}
