package main

import (
	"time"

	"github.com/tinehq/tine/plumbing"
)

// signCmd is `tine sign OBJ|FILE.tine --key-file K [--hmac] [--key-id ID]
// [--signer S] [-o OUT [--overwrite] | --in-place] [--signed-at T]`.
type signCmd struct {
	Target    string `arg:"" name:"target" help:"Revision of the attestation to sign, or a .tine file."`
	KeyFile   string `name:"key-file" required:"" placeholder:"K" help:"Key file: an Ed25519 seed (tine keygen), or with --hmac the HMAC secret."`
	HMAC      bool   `name:"hmac" help:"Sign with HMAC-SHA256 (key at least 16 bytes) instead of Ed25519."`
	KeyID     string `name:"key-id" placeholder:"ID" help:"Key label recorded in the signed header."`
	Signer    string `name:"signer" placeholder:"S" help:"Signer; for an attestation it must match the attestation's signer when it names one."`
	Output    string `name:"output" short:"o" placeholder:"OUT" help:"A .tine file: write the signed copy here (it must not exist unless --overwrite)."`
	InPlace   bool   `name:"in-place" help:"A .tine file: rewrite the file itself with the signature."`
	Overwrite bool   `name:"overwrite" help:"With -o: replace an existing output file."`
	SignedAt  string `name:"signed-at" placeholder:"T" help:"A .tine file: record this RFC 3339 time (or \"now\") as signed_at; absent by default."`
	jsonFlag
}

// Help shows examples under `tine sign --help`.
func (c *signCmd) Help() string {
	return `An attestation: objects never change, so signing stores a NEW
attestation (scheme tine-attest/1) carrying the signature and prints its
oid. An attestation that is already signed is refused.

A .tine file (an existing file named as the target): the run is signed
with scheme tine-sig/2 into -o OUT, or into the file itself with
--in-place; the signed file is written whole or not at all. The file must
pass its integrity check, hold a completed or failed run (not a draft) and
carry no signature yet. Secrets left in it are redacted first, as
OpenTine's writer does.

Examples:

    $ tine sign attestation:blake3:4a1e... --key-file ci.key --key-id ci-2026
    $ tine sign 4a1e --hmac --key-file ci.hmac
    $ tine sign run.tine --key-file ci.key --signer ci -o run.signed.tine
    $ tine sign run.tine --hmac --key-file ci.hmac --in-place`
}

// Run signs and prints the new attestation's oid, or the signed file.
func (c *signCmd) Run(e *env) error {
	if plumbing.IsArtifactPath(c.Target) {
		return c.signArtifact(e)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"-o", c.Output != ""}, {"--in-place", c.InPlace}, {"--overwrite", c.Overwrite}, {"--signed-at", c.SignedAt != ""}} {
		if f.set {
			return usagef("%s applies to a .tine file; %s is not a file, so it names an attestation", f.name, c.Target)
		}
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Sign(e.ctx, r, plumbing.SignOptions{
		Revision: c.Target, KeyFile: c.KeyFile, HMAC: c.HMAC, KeyID: c.KeyID, Signer: c.Signer, Now: time.Now,
	})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { p.printf("%s\n", res.OID) })
}

// signArtifact signs a .tine file; where it goes must be said explicitly,
// so the input is never replaced by accident.
func (c *signCmd) signArtifact(e *env) error {
	switch {
	case c.Output != "" && c.InPlace:
		return usagef("-o and --in-place cannot be combined")
	case c.Output == "" && !c.InPlace:
		return usagef("name the signed file with -o OUT, or pass --in-place to rewrite %s", c.Target)
	case c.Overwrite && c.InPlace:
		return usagef("--overwrite has no effect with --in-place")
	}
	at := c.SignedAt
	if at == "now" {
		at = time.Now().UTC().Format(time.RFC3339)
	}
	res, err := plumbing.SignArtifact(e.ctx, plumbing.SignArtifactOptions{
		Path: c.Target, Output: c.Output, InPlace: c.InPlace, Overwrite: c.Overwrite,
		KeyFile: c.KeyFile, HMAC: c.HMAC, KeyID: c.KeyID, Signer: c.Signer, SignedAt: at,
	})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("%s %s -> %s\n", p.good("signed"), res.RunID, res.Output)
		p.printf("scheme     %s (%s)\n", res.Scheme, res.Algorithm)
		if res.Signer != nil {
			p.printf("signer     %s\n", *res.Signer)
		}
		p.printf("key        %s\n", res.Fingerprint)
		if res.Redacted > 0 {
			p.printf("redacted   %d secret value(s) before signing\n", res.Redacted)
		}
	})
}
