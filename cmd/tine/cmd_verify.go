package main

import (
	"github.com/tinehq/tine/plumbing"
)

// verifyCmd is `tine verify FILE|OBJ [--key-file K | --pubkey P]
// [--require-signature] [--trust-embedded-key] [--pin FINGERPRINT]`.
type verifyCmd struct {
	Target           string   `arg:"" name:"target" help:"A .tine file, the revision of an attestation, or a run (every attestation on it)."`
	KeyFile          string   `name:"key-file" placeholder:"K" help:"Key file: the HMAC secret, or the Ed25519 seed whose public half checks the signature."`
	PubKey           string   `name:"pubkey" placeholder:"P" help:"Ed25519 public key: a file holding it, or its 64 hex digits."`
	RequireSignature bool     `name:"require-signature" help:"Fail when the target is unsigned."`
	TrustEmbedded    bool     `name:"trust-embedded-key" help:"Accept an Ed25519 signature's own embedded public key (trust on first use)."`
	Pin              []string `name:"pin" placeholder:"FINGERPRINT" help:"Accept only a key whose fingerprint starts with these 16-64 hex digits (repeatable)."`
	jsonFlag
}

// Help explains fail-closed arming under `tine verify --help`.
func (c *verifyCmd) Help() string {
	return `Given a run, checks every attestation on it (evaluations, gate
attestations, any claim), one line each: the run passes when all do.
Signatures live on attestations; a run's events are content-addressed, not
signed. Armed, a run with no attestation fails.

Any key flag, --require-signature, --trust-embedded-key or --pin arms the
check: the command then exits 0 only for a verified signature. Unarmed it
reports the verdict and fails only on a malformed signature (or, for a .tine
file, a failed integrity digest; for a run, an Ed25519 signature that fails
even against its own embedded key). A key fingerprint is the sha256 of the
verifying key (the Ed25519 public key, or the HMAC key bytes), as tine
keygen prints it.

Examples:

    $ tine verify attestation:blake3:4a1e... --pubkey ci.pub
    $ tine verify run.tine --key-file ci.hmac --require-signature
    $ tine verify 4a1e --trust-embedded-key --pin 1f0c9a8b7d6e5f40
    $ tine verify heads/main --pubkey ci.pub`
}

// Run verifies and prints the verdict; a failed check exits 1.
func (c *verifyCmd) Run(e *env) error {
	if c.KeyFile != "" && c.PubKey != "" {
		return usagef("--key-file and --pubkey cannot be combined; give one key")
	}
	var r *plumbing.Repo
	if !plumbing.IsArtifactPath(c.Target) {
		var err error
		if r, err = e.openRepo(); err != nil {
			return err
		}
		defer r.Close()
	}
	opt := plumbing.VerifyOptions{
		Target: c.Target, KeyFile: c.KeyFile, PubKey: c.PubKey,
		RequireSignature: c.RequireSignature, TrustEmbedded: c.TrustEmbedded, Pins: c.Pin,
	}
	if r != nil {
		if r.NamesRun(e.ctx, c.Target) {
			return c.runRun(e, r, opt)
		}
	}
	res, err := plumbing.Verify(e.ctx, r, opt)
	if err != nil {
		return err
	}
	err = e.emit(c.JSON, res, func(p *printer) { printSigVerify(p, res) })
	if err == nil && !res.OK {
		err = &silentError{code: exitFailure}
	}
	return err
}

// runRun verifies every attestation on a run; any failure exits 1.
func (c *verifyCmd) runRun(e *env, r *plumbing.Repo, opt plumbing.VerifyOptions) error {
	res, err := plumbing.VerifyRun(e.ctx, r, opt)
	if err != nil {
		return err
	}
	err = e.emit(c.JSON, res, func(p *printer) {
		word := p.good("OK")
		if !res.OK {
			word = p.bad("FAILED")
		}
		p.printf("%s run %s: %d attestation(s)\n", word, res.OID, len(res.Attestations))
		for _, a := range res.Attestations {
			w := p.good("ok    ")
			if !a.OK {
				w = p.bad("FAILED")
			}
			p.printf("  %s %s %s", w, shortOID(a.OID), a.Signature.State)
			if a.Signature.Fingerprint != "" {
				p.printf(" key %s", a.Signature.Fingerprint)
			}
			if a.Unchecked() {
				p.printf(" (present, NOT checked against a trusted key)")
			}
			if a.Problem != "" {
				p.printf(": %s", a.Problem)
			}
			p.printf("\n")
		}
		if res.Problem != "" && len(res.Attestations) == 0 {
			p.printf("problem    %s\n", res.Problem)
		}
	})
	if err == nil && !res.OK {
		err = &silentError{code: exitFailure}
	}
	return err
}

// printSigVerify renders the verdict: one status line, then the labels.
func printSigVerify(p *printer, res *plumbing.VerifyResult) {
	v := res.Signature
	word := p.good("OK")
	if !res.OK {
		word = p.bad("FAILED")
	}
	name := res.Target
	if res.OID != "" {
		name = res.OID
	}
	p.printf("%s %s\n", word, name)
	if res.Integrity != nil {
		p.printf("integrity  %s\n", res.Integrity.Reason)
	}
	p.printf("signature  %s (%s)\n", v.State, v.Reason)
	for _, l := range []struct {
		k string
		v *string
	}{{"algorithm", v.Algorithm}, {"signer", v.Signer}, {"key_id", v.KeyID}, {"signed_at", v.SignedAt}} {
		if l.v != nil {
			p.printf("%-10s %s\n", l.k, *l.v)
		}
	}
	if v.Fingerprint != "" {
		p.printf("key        %s\n", v.Fingerprint)
	}
	if res.Unchecked() {
		p.printf("note       signature present but NOT checked against a trusted key\n")
	}
	if res.Problem != "" {
		p.printf("problem    %s\n", res.Problem)
	}
}
