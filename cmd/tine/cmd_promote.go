package main

import (
	"github.com/tinehq/tine/porcelain/trust"
)

// promoteCmd is `tine promote REF --name NAME [--expected-old OID|absent]
// [--policy FILE] [--key-file K...] [--reason TEXT] [--actor WHO]`.
type promoteCmd struct {
	Target      string   `arg:"" name:"ref" help:"Revision of the run to promote."`
	Name        string   `name:"name" required:"" placeholder:"NAME" help:"Promotion name: moves promotions/NAME."`
	ExpectedOld string   `name:"expected-old" placeholder:"OID|absent" help:"Current value of promotions/NAME; omitted or 'absent' means it must not exist yet."`
	Policy      string   `name:"policy" placeholder:"FILE" help:"Release policy file (default: tine-policy.json next to .tine)."`
	KeyFile     []string `name:"key-file" placeholder:"K" help:"Secret of an HMAC key the policy trusts (repeatable)."`
	Reason      string   `name:"reason" placeholder:"TEXT" help:"Why: recorded in the reflog."`
	Actor       string   `name:"actor" placeholder:"WHO" help:"Who: recorded in the reflog (default: local)."`
	jsonFlag
}

// Help explains the release gate under `tine promote --help`.
func (c *promoteCmd) Help() string {
	return `Checks the release policy for promotion NAME against the run's
attestations (evaluation scores, passing gate attestations, trusted
signatures), then moves promotions/NAME to the run by compare-and-swap.
There is no --force: the first promotion needs no --expected-old, every
later one names the value it replaces. A refusal exits 1 and lists every
unmet requirement. The reflog row's actor is "WHO: REASON [policy OID]".

Examples:

    $ tine promote heads/main --name production --reason "nightly release"
    $ tine promote heads/main --name production --expected-old run:blake3:9c0d... --actor ci`
}

// Run checks the policy and promotes.
func (c *promoteCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := trust.Promote(e.ctx, r, trust.PromoteOptions{
		Target: c.Target, Name: c.Name, ExpectedOld: c.ExpectedOld, PolicyFile: c.Policy,
		KeyFiles: c.KeyFile, Reason: c.Reason, Actor: c.Actor,
	})
	if res == nil {
		return err
	}
	if perr := e.emit(c.JSON, res, func(p *printer) { printPromote(p, res) }); perr != nil {
		return perr
	}
	return err
}

// printPromote renders each requirement, then the move.
func printPromote(p *printer, res *trust.PromoteResult) {
	for _, q := range res.Decision.Requirements {
		word := p.good("met  ")
		if !q.Met {
			word = p.bad("UNMET")
		}
		p.printf("%s %s: %s\n", word, q.Requirement, q.Reason)
	}
	if !res.Promoted {
		p.printf("%s %s not moved\n", p.bad("refused"), res.Ref)
		return
	}
	if res.Old != "" {
		p.printf("promoted %s %s -> %s\n", res.Ref, res.Old, res.Run)
	} else {
		p.printf("promoted %s -> %s\n", res.Ref, res.Run)
	}
}
