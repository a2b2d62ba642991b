package main

import (
	"github.com/tinehq/tine/porcelain/trust"
)

// promotionsCmd is `tine promotions [--json]`.
type promotionsCmd struct {
	jsonFlag
}

// Help shows an example under `tine promotions --help`.
func (c *promotionsCmd) Help() string {
	return `Lists each promotions/NAME ref with its history (the reflog, newest
first): when it moved, from what to what, who moved it and why.

Example:

    $ tine promotions --json`
}

// Run lists the promotions.
func (c *promotionsCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := trust.Promotions(e.ctx, r.Refs())
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printPromotions(p, res) })
}

// printPromotions renders each promotion with its history of moves.
func printPromotions(p *printer, res *trust.PromotionsResult) {
	if len(res.Promotions) == 0 {
		p.printf("no promotions\n")
	}
	for _, pr := range res.Promotions {
		p.printf("%s %s\n", pr.Ref, pr.Run)
		for _, h := range pr.History {
			from := h.Old
			if from == "" {
				from = "(new)"
			}
			p.printf("  %s %s -> %s by %s", h.Time, from, h.New, h.Who)
			if h.Why != "" {
				p.printf(": %s", h.Why)
			}
			if h.Policy != "" {
				p.printf(" [policy %s]", h.Policy)
			}
			p.printf("\n")
		}
	}
}
