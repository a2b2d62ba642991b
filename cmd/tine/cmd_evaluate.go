package main

import (
	"time"

	"github.com/tinehq/tine/porcelain"
)

// evaluateCmd is `tine evaluate REF --score NAME=VALUE... [--signer S]
// [--key-file K [--hmac] [--key-id ID]]`.
type evaluateCmd struct {
	Target  string   `arg:"" name:"ref" help:"Revision of the run evaluated."`
	Score   []string `name:"score" required:"" placeholder:"NAME=VALUE" help:"A score: a finite JSON number (repeatable; names unique)."`
	Signer  string   `name:"signer" placeholder:"S" help:"Evaluator name recorded as the signer (default: local)."`
	KeyFile string   `name:"key-file" placeholder:"K" help:"Sign with this key file (tine-attest/1): an Ed25519 seed, or with --hmac an HMAC secret."`
	HMAC    bool     `name:"hmac" help:"The key file is an HMAC-SHA256 secret."`
	KeyID   string   `name:"key-id" placeholder:"ID" help:"Key label recorded in the signed header."`
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
	if err := refuseKeyFlags(c.KeyFile, c.HMAC, c.KeyID); err != nil {
		return err
	}
	scores := make([]porcelain.Score, 0, len(c.Score))
	for _, arg := range c.Score {
		s, err := porcelain.ParseScore(arg)
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
	res, err := porcelain.Evaluate(e.ctx, r, porcelain.EvaluateOptions{
		Target: c.Target, Scores: scores, Signer: c.Signer,
		SignWith: porcelain.SignWith{KeyFile: c.KeyFile, HMAC: c.HMAC, KeyID: c.KeyID, Now: time.Now},
	})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printAttestResult(p, res) })
}

// refuseKeyFlags rejects signing flags given without a key file, which
// would otherwise be silently ignored (ARCHITECTURE §5).
func refuseKeyFlags(keyFile string, hmac bool, keyID string) error {
	if keyFile == "" && (hmac || keyID != "") {
		return usagef("--hmac and --key-id need --key-file")
	}
	return nil
}

// printAttestResult prints the new attestation's oid, alone on its line,
// so scripts can capture it (--json has the rest).
func printAttestResult(p *printer, res *porcelain.AttestResult) {
	p.printf("%s\n", res.OID)
}
