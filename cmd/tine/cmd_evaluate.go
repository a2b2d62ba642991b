package main

import (
	"github.com/tinehq/tine/porcelain/trust"
)

// evaluateCmd is `tine evaluate REF --score NAME=VALUE... [--signer S]
// [--key-file K [--hmac] [--key-id ID]]`.
type evaluateCmd struct {
	Target string   `arg:"" name:"ref" help:"Revision of the run evaluated."`
	Score  []string `name:"score" required:"" placeholder:"NAME=VALUE" help:"A score: a finite JSON number (repeatable; names unique)."`
	signFlags
	jsonFlag
}

// Help shows examples under `tine evaluate --help`.
func (c *evaluateCmd) Help() string {
	return `Stores an evaluation attestation on the run: claim
{"kind":"evaluation","scores":{NAME: VALUE}}. With --key-file it is
redacted, then signed (tine-attest/1), then stored. Prints the oid.
NaN, Inf and values that overflow (1e999) are refused.

Examples:

    $ tine evaluate heads/main --score accuracy=0.93 --score latency_ms=180
    $ tine evaluate heads/main --score accuracy=0.93 --signer ci --key-file ci.key`
}

// Run parses the scores, then stores the evaluation.
func (c *evaluateCmd) Run(e *env) error {
	sw, err := c.signWith()
	if err != nil {
		return err
	}
	scores := make([]trust.Score, 0, len(c.Score))
	for _, arg := range c.Score {
		s, err := trust.ParseScore(arg)
		if err != nil {
			return usagef("--score: %v", err)
		}
		scores = append(scores, s)
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := trust.Evaluate(e.ctx, r, trust.EvaluateOptions{
		Target: c.Target, Scores: scores, Signer: c.Signer,
		SignWith: sw,
	})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printAttestResult(p, res) })
}

// printAttestResult prints the new attestation's oid, alone on its line,
// so scripts can capture it (--json has the rest).
func printAttestResult(p *printer, res *trust.AttestResult) {
	p.printf("%s\n", res.OID)
}
