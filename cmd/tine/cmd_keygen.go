package main

import (
	"github.com/tinehq/tine/plumbing"
)

// keygenCmd is `tine keygen [--hmac] --out FILE [--pub FILE] [--force]`.
type keygenCmd struct {
	HMAC  bool   `name:"hmac" help:"Generate a 32-byte HMAC-SHA256 secret (hex) instead of an Ed25519 key pair."`
	Out   string `name:"out" required:"" placeholder:"FILE" help:"Write the secret here (mode 0600): the Ed25519 seed or the HMAC key, as hex."`
	Pub   string `name:"pub" placeholder:"FILE" help:"Also write the Ed25519 public key here, as hex."`
	Force bool   `name:"force" help:"Replace existing key files."`
	jsonFlag
}

// Help shows examples under `tine keygen --help`.
func (c *keygenCmd) Help() string {
	return `The secret never reaches the output; the fingerprint printed (sha256 of
the verifying key) is what tine verify --pin takes.

Examples:

    $ tine keygen --out ci.key --pub ci.pub
    $ tine keygen --hmac --out ci.hmac`
}

// Run writes the key files and prints the algorithm and fingerprint.
func (c *keygenCmd) Run(e *env) error {
	if err := e.refuseRepoFlag("keys are plain files"); err != nil {
		return err
	}
	if c.HMAC && c.Pub != "" {
		return usagef("--pub applies to Ed25519 keys; an HMAC key has no public half")
	}
	res, err := plumbing.Keygen(e.ctx, nil, plumbing.KeygenOptions{HMAC: c.HMAC, Out: c.Out, Pub: c.Pub, Force: c.Force})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("%s key written to %s\n", res.Algorithm, res.Out)
		if res.Pub != "" {
			p.printf("public key written to %s\n", res.Pub)
		}
		if res.PublicKey != "" {
			p.printf("public key  %s\n", res.PublicKey)
		}
		p.printf("fingerprint %s\n", res.Fingerprint)
	})
}
