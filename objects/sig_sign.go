package objects

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// SignMessage returns the signature value over msg as lowercase hex: the
// HMAC-SHA256 of msg, or the pure Ed25519 signature of msg (SPEC §4.1).
func (k *SigningKey) SignMessage(msg []byte) string {
	if k.priv != nil {
		return hex.EncodeToString(ed25519.Sign(k.priv, msg))
	}
	m := hmac.New(sha256.New, k.hmac)
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}

// SignRequest says how to sign a document.
type SignRequest struct {
	// Scheme is SchemeSigV2 for an artifact or SchemeAttestV1 for an
	// attestation payload. tine-sig/1 is verify-only (SPEC §4.3).
	Scheme string
	// Key signs; its algorithm is the block's alg.
	Key *SigningKey
	// KeyID, Signer and SignedAt are the optional header labels; nil ones
	// are signed as null and left out of the stored block.
	KeyID, Signer, SignedAt *string
}

// SignDocument signs doc under req.Scheme and returns the block to store.
// It neither redacts nor stores: callers redact first and place the block
// (AttestSign does both for attestations).
func SignDocument(doc Value, req SignRequest) (SigBlock, error) {
	switch {
	case req.Key == nil:
		return SigBlock{}, fmt.Errorf("%w: no signing key", ErrBadKey)
	case req.Scheme == SchemeSigV1:
		return SigBlock{}, fmt.Errorf("%w: %s is verified but never written", ErrUnsupportedScheme, SchemeSigV1)
	}
	b := SigBlock{Alg: req.Key.alg, Scheme: req.Scheme, KeyID: req.KeyID, Signer: req.Signer, SignedAt: req.SignedAt}
	msg, err := SigMessage(req.Scheme, doc, b.Header())
	if err != nil {
		return SigBlock{}, err
	}
	b.Value = req.Key.SignMessage(msg)
	if pub := req.Key.PublicKey(); pub != nil {
		b.PublicKey = hex.EncodeToString(pub)
	}
	return b, nil
}

// AttestSignRequest says how AttestSign signs an attestation.
type AttestSignRequest struct {
	// Key signs.
	Key *SigningKey
	// KeyID and SignedAt are optional labels (nil: absent). The signer
	// label is always the payload's own "signer".
	KeyID, SignedAt *string
}

// AttestSign is the attestation writer (SPEC §4.5): it redacts the payload
// (SPEC §1.7), defaults evidence_ids to [], signs the payload as every
// reader will see it with tine-attest/1 (the header signer is the payload's
// signer), and returns the v3 attestation object holding the payload plus
// its "signature" block, with the block.
//
// A payload that is not an object fails with sig.payload-not-object; one
// without a non-empty string signer with ErrMissingSigner; one whose
// "signature" is already a block (not absent, not null) with
// ErrAlreadySigned. The object's links are not checked here: storing it
// validates them against the repository.
func AttestSign(a Algo, payload Value, req AttestSignRequest) (*Object, SigBlock, error) {
	if payload.Kind != KindObject {
		return nil, SigBlock{}, Errorf(ReasonSigPayloadNotObject, "attestation payload is a JSON %s, not an object", payload.Kind)
	}
	if s, ok := payload.Get("signature"); ok && s.Kind != KindNull {
		return nil, SigBlock{}, ErrAlreadySigned
	}
	red, _ := RedactValue(without(payload, "signature"))
	if _, ok := red.Get("evidence_ids"); !ok {
		red.Object = append(red.Object, Member{Key: "evidence_ids", Value: Array()})
	}
	signer, ok := red.Get("signer")
	if !ok || signer.Kind != KindString || signer.Str == "" {
		return nil, SigBlock{}, ErrMissingSigner
	}
	// Sign what a reader parses back from the stored body, not the caller's
	// tree: v3 storage spells 1.0 as 1, which v2 then writes as an int.
	unsigned, err := NewJSONObject(a, TypeAttestation, 1, red)
	if err != nil {
		return nil, SigBlock{}, fmt.Errorf("attestation payload: %w", err)
	}
	name := signer.Str
	block, err := SignDocument(unsigned.Value, SignRequest{
		Scheme: SchemeAttestV1, Key: req.Key, KeyID: req.KeyID, Signer: &name, SignedAt: req.SignedAt,
	})
	if err != nil {
		return nil, SigBlock{}, err
	}
	stored := unsigned.Value
	stored.Object = append(append([]Member(nil), stored.Object...), Member{Key: "signature", Value: block.ToValue()})
	o, err := NewJSONObject(a, TypeAttestation, 1, stored)
	if err != nil {
		return nil, SigBlock{}, fmt.Errorf("signed attestation: %w", err)
	}
	return o, block, nil
}
