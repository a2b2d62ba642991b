package main

import (
	"time"

	"github.com/tinehq/tine/porcelain/trust"
)

// signFlags are the signing flags of every verb that writes an
// attestation (attest, evaluate, gate run, gate ci): one definition, so
// they sign alike and refuse the same misuse.
type signFlags struct {
	Signer  string `name:"signer" placeholder:"S" help:"Signer name recorded in the attestation (default: local)."`
	KeyFile string `name:"key-file" placeholder:"K" help:"Sign with this key file (tine-attest/1): an Ed25519 seed, or with --hmac an HMAC secret."`
	HMAC    bool   `name:"hmac" help:"The key file is an HMAC-SHA256 secret."`
	KeyID   string `name:"key-id" placeholder:"ID" help:"Key label recorded in the signed header."`
}

// signWith checks the flags and returns how to sign; --hmac and --key-id
// without --key-file would be ignored, so they are refused
// (ARCHITECTURE §5).
func (f signFlags) signWith() (trust.SignWith, error) {
	if err := refuseKeyFlags(f.KeyFile, f.HMAC, f.KeyID); err != nil {
		return trust.SignWith{}, err
	}
	return trust.SignWith{KeyFile: f.KeyFile, HMAC: f.HMAC, KeyID: f.KeyID, Now: time.Now}, nil
}

// refuseKeyFlags rejects signing flags given without a key file, which
// would otherwise be silently ignored (ARCHITECTURE §5).
func refuseKeyFlags(keyFile string, hmac bool, keyID string) error {
	if keyFile == "" && (hmac || keyID != "") {
		return usagef("--hmac and --key-id need --key-file")
	}
	return nil
}
