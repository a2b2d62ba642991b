package main

import (
	"strings"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateStatusCmd is `tine gate status`.
type gateStatusCmd struct {
	gateProject
	Phase string `name:"phase" enum:"change,stop,push,ci" default:"stop" help:"Phase whose waiver policy applies (default stop)."`
	jsonFlag
}

// Help shows an example under `tine gate status --help`.
func (c *gateStatusCmd) Help() string {
	return `Computes every constraint's input digest and looks it up among the
recorded evidence. Nothing is executed.

Example:

    $ tine gate status
    FRESH pass tests: Command passed
    STALE coverage: watched files changed`
}

// Run reports freshness.
func (c *gateStatusCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := gates.GateStatus(e.ctx, r, gates.GateStatusOptions{Root: c.Project, Phase: gates.GatePhase(c.Phase)})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		for _, s := range res.Constraints {
			switch s.State {
			case gates.GateFresh:
				p.printf("FRESH %s %s: %s", s.Verdict, s.ID, s.Message)
				if s.Waiver != "" {
					p.printf(" (waived: %s)", s.Waiver)
				}
			default:
				p.printf("%s %s: %s", strings.ToUpper(s.State), s.ID, s.Reason)
			}
			if !s.InPhase {
				p.printf(" %s", p.dim("(not in phase "+res.Phase+")"))
			}
			p.printf("\n")
		}
	})
}
