package main

import (
	"strings"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateDebugCmd is `tine gate debug ID`.
type gateDebugCmd struct {
	gateProject
	ID    string `arg:"" name:"id" help:"Constraint id."`
	Phase string `name:"phase" enum:"change,stop,push,ci" default:"stop" help:"Phase whose waiver policy applies (default stop)."`
	jsonFlag
}

// Help shows an example under `tine gate debug --help`.
func (c *gateDebugCmd) Help() string {
	return `Shows the constraint's command, the inputs of its digest, whether the
newest evidence is fresh (and why not), and that evidence's output tail.
Never executes anything.

Example:

    $ tine gate debug tests`
}

// Run explains one constraint.
func (c *gateDebugCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := gates.GateDebug(e.ctx, r, gates.GateDebugOptions{Root: c.Project, ID: c.ID, Phase: gates.GatePhase(c.Phase)})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		s := res.Status
		p.printf("constraint:   %s (%s, %s)\n", s.ID, s.Kind, s.Enforcement)
		if len(res.Command) > 0 {
			p.printf("command:      %s\n", strings.Join(res.Command, " "))
		}
		p.printf("input digest: %s\n", s.InputDigest)
		p.printf("contract:     %s\n", res.ContractDigest)
		p.printf("checkout:     %s\n", res.Checkout)
		p.printf("watched:      %d files\n", res.WatchedFiles)
		p.printf("evidence:     %s", strings.ToUpper(s.State))
		if s.Reason != "" {
			p.printf(" (%s)", s.Reason)
		}
		p.printf("\n")
		if ev := res.Evidence; ev != nil {
			p.printf("event:        %s (phase %s)\n", ev.Event, ev.Phase)
			p.printf("verdict:      %s: %s\n", ev.Verdict, ev.Message)
			for _, a := range ev.Attempts {
				p.printf("  %s\n", a)
			}
			p.printf("output tail:\n%s\n", ev.Output)
		}
	})
}
