package main

import (
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// attestationsCmd is `tine attestations [RUN] [--json]`.
type attestationsCmd struct {
	Rev string `arg:"" optional:"" name:"run" help:"Run: ref, oid, prefix, REF~N or REF@{n} (default the current run, tine switch, else heads/main)."`
	jsonFlag
}

// Help shows an example under `tine attestations --help`.
func (c *attestationsCmd) Help() string {
	return `Lists the attestations on a run, found through the derived catalog and
read back through the store: evaluations with their scores, gate
attestations with their decision, any other claim with its kind and string
fields, each with its signer and signature state. An Ed25519 signature is
checked against the key embedded in it (intact, but not a key you trust:
tine verify RUN --pubkey K checks against yours); an HMAC one needs its key.

Example:

    $ tine attestations experiments/retry
    evaluation 6d1f0e2a9c3b accuracy=0.95 signer ci unsigned
    gate       0c4e1f6b2a7d decision pass contract ... phase ci signer tine unsigned`
}

// Run lists the attestations.
func (c *attestationsCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	rev, err := runs.RefOrCurrent(r, c.Rev)
	if err != nil {
		return err
	}
	a, err := trust.AssociationsAt(e.ctx, r, runs.OrDefault(rev, runs.DefaultRef))
	if err != nil {
		return err
	}
	res := struct {
		Run          string                 `json:"run"`
		Attestations []trust.RunAttestation `json:"attestations"`
	}{a.Run, a.Attestations}
	return e.emit(c.JSON, res, func(p *printer) {
		if len(a.Attestations) == 0 {
			p.printf("%s\n", p.dim("(no attestations on run "+shortOID(a.Run)+")"))
			return
		}
		printAttestations(p, "", a.Attestations)
	})
}
