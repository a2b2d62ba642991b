package main

import (
	"time"

	"github.com/tinehq/tine/plumbing"
)

// signCmd is `tine sign OBJ --key-file K [--hmac] [--key-id ID] [--signer S]`.
type signCmd struct {
	Object  string `arg:"" name:"obj" help:"Revision of the attestation to sign."`
	KeyFile string `name:"key-file" required:"" placeholder:"K" help:"Key file: an Ed25519 seed (tine keygen), or with --hmac the HMAC secret."`
	HMAC    bool   `name:"hmac" help:"Sign with HMAC-SHA256 (key at least 16 bytes) instead of Ed25519."`
	KeyID   string `name:"key-id" placeholder:"ID" help:"Key label recorded in the signed header."`
	Signer  string `name:"signer" placeholder:"S" help:"Signer; must match the attestation's signer when it names one."`
	jsonFlag
}

// Help shows examples under `tine sign --help`.
func (c *signCmd) Help() string {
	return `Objects never change: signing stores a NEW attestation (scheme
tine-attest/1) carrying the signature and prints its oid. An attestation
that is already signed is refused.

Examples:

    $ tine sign attestation:blake3:4a1e... --key-file ci.key --key-id ci-2026
    $ tine sign 4a1e --hmac --key-file ci.hmac`
}

// Run signs and prints the new attestation's oid.
func (c *signCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Sign(e.ctx, r, plumbing.SignOptions{
		Revision: c.Object, KeyFile: c.KeyFile, HMAC: c.HMAC, KeyID: c.KeyID, Signer: c.Signer, Now: time.Now,
	})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { p.printf("%s\n", res.OID) })
}
