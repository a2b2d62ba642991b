package main

import (
	"errors"

	"github.com/tinehq/tine/porcelain/compare"
	"github.com/tinehq/tine/porcelain/trust"
)

// runsCmd is `tine runs [--sort-by COL] [--filter EXPR...] [--only-changed]
// [--baseline REV] [--json|--csv|--md]`.
type runsCmd struct {
	SortBy      string   `name:"sort-by" placeholder:"COL" help:"Sort rows by this column (a metric, a parameter, cost, ...); empty cells last."`
	SortOrder   string   `name:"sort-order" enum:"asc,desc" default:"asc" help:"Sort order for --sort-by: asc or desc."`
	Filter      []string `name:"filter" placeholder:"EXPR" help:"Keep rows where COL OP VALUE holds (OP: = != < <= > >= ~ !~; repeatable, all must hold)."`
	OnlyChanged bool     `name:"only-changed" help:"Drop columns whose value is the same in every row."`
	Baseline    string   `name:"baseline" placeholder:"REV" help:"Show each numeric cell's difference to this run's."`
	Remotes     bool     `name:"remotes" help:"Include runs that remotes/ tracking refs name."`
	Signer      string   `name:"signer" placeholder:"S" help:"Count only evaluations and gates by this signer."`
	Promotion   string   `name:"promotion" placeholder:"NAME" help:"Count only the attestations the release policy's promotion NAME trusts (as tine promote)."`
	Policy      string   `name:"policy" placeholder:"FILE" help:"Release policy for --promotion (default tine-policy.json beside .tine)."`
	KeyFile     []string `name:"key-file" placeholder:"K" help:"HMAC secret of a key --promotion trusts (repeatable)."`
	CSV         bool     `name:"csv" help:"Print the table as CSV (RFC 4180)."`
	MD          bool     `name:"md" help:"Print the table as a Markdown table."`
	jsonFlag
}

// Help shows examples under `tine runs --help`.
func (c *runsCmd) Help() string {
	return `Shows every run that a ref under heads/, experiments/ or promotions/
names (remotes/ too with --remotes), one row per run, from the derived
catalog: status, events, cost, tokens, duration (seconds, summed over
events), the newest trusted score of each evaluation metric, the gate
decision, promotions, and the parameters the run declares (param.NAME:
tine record --param NAME=VALUE, attributes.params of any event, and a
loop's policy as param.loop.*).

By default every evaluation counts, as in tine candidates (--signer narrows
it); with --promotion NAME only those the release policy trusts for NAME.
The newest score is the one signed last; unsigned evaluations carry no time
and count as older than signed ones, the higher value winning a tie.

Filters: accuracy>=0.9, status=completed, ref~experiments/tune/*, lr!=0.1.
A parameter column may be named without its param. prefix.

Examples:

    $ tine runs
    $ tine runs --sort-by accuracy --sort-order desc --only-changed
    $ tine runs --filter 'ref~experiments/tune/*' --baseline heads/main
    $ tine runs --filter accuracy>=0.9 --csv > runs.csv`
}

// Run builds the table and renders it.
func (c *runsCmd) Run(e *env) error {
	formats := 0
	for _, on := range []bool{c.JSON, c.CSV, c.MD} {
		if on {
			formats++
		}
	}
	if formats > 1 {
		return usagef("--json, --csv and --md cannot be combined; pick one format")
	}
	if c.Promotion != "" && c.Signer != "" {
		return usagef("--signer and --promotion cannot be combined: the policy names its signers")
	}
	if c.Promotion == "" && (c.Policy != "" || len(c.KeyFile) > 0) {
		return usagef("--policy and --key-file apply only with --promotion NAME")
	}
	opt := compare.TableOptions{SortBy: c.SortBy, Desc: c.SortOrder == "desc", OnlyChanged: c.OnlyChanged,
		Baseline: c.Baseline, Remotes: c.Remotes, Trust: compare.TrustAll(c.Signer)}
	for _, expr := range c.Filter {
		f, err := compare.ParseFilter(expr)
		if err != nil {
			return usagef("--filter: %v", err)
		}
		opt.Filters = append(opt.Filters, f)
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Promotion != "" {
		pt, err := trust.LoadPolicyTrust(r, c.Policy, c.Promotion, c.KeyFile)
		if err != nil {
			return err
		}
		opt.Trust = compare.TrustPolicy(pt)
	}
	t, err := compare.BuildTable(e.ctx, r, opt)
	switch {
	case errors.Is(err, compare.ErrBadFilter):
		return usagef("--filter: %v", err)
	case errors.Is(err, compare.ErrBadColumn):
		return usagef("--sort-by: %v", err)
	case err != nil:
		return err
	}
	switch {
	case c.JSON:
		return writeJSON(e.stdout, e.verb, t)
	case c.CSV:
		return writeTableCSV(e.stdout, t)
	case c.MD:
		p := &printer{w: e.stdout}
		printTableMD(p, t)
		return p.err
	}
	return e.page(func(p *printer) { printTable(p, t) })
}
