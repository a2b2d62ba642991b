package main

import (
	"os"

	"github.com/tinehq/tine/porcelain/trust"
)

// attestCmd is `tine attest REF --claim FILE.json [--evidence OID...]
// [--signer S] [--key-file K [--hmac] [--key-id ID]]`.
type attestCmd struct {
	Target   string   `arg:"" name:"ref" help:"Revision of the run the claim is about."`
	Claim    string   `name:"claim" required:"" placeholder:"FILE.json" help:"The claim: a JSON object, read strictly (duplicate keys refused); - reads stdin."`
	Evidence []string `name:"evidence" placeholder:"OID" help:"An object the claim rests on (repeatable)."`
	signFlags
	jsonFlag
}

// Help shows examples under `tine attest --help`.
func (c *attestCmd) Help() string {
	return `Stores an attestation {claim, evidence_ids, signer, target_id, signature}
on the run; with --key-file it is redacted, signed (tine-attest/1) and
stored. Prints the oid. A gate attestation, which tine promote's policy can
require, has the claim {"kind":"gate","contract":DIGEST,"contract_name":NAME,
"phase":PHASE,"decision":"pass",...}.

Examples:

    $ tine attest heads/main --claim review.json --signer alice
    $ tine attest heads/main --claim gate.json --evidence 4a1e --key-file ci.key`
}

// Run reads the claim and stores the attestation.
func (c *attestCmd) Run(e *env) error {
	sw, err := c.signWith()
	if err != nil {
		return err
	}
	in := e.stdin
	if c.Claim != "-" {
		f, err := os.Open(c.Claim)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	claim, err := trust.ParseClaim(in, c.Claim)
	if err != nil {
		return err
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := trust.Attest(e.ctx, r, trust.AttestOptions{
		Target: c.Target, Claim: claim, Evidence: c.Evidence, Signer: c.Signer,
		SignWith: sw,
	})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printAttestResult(p, res) })
}
