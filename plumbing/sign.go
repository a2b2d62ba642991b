package plumbing

import (
	"context"
	"fmt"
	"time"

	"github.com/tinehq/tine/objects"
)

// SignOptions configures Sign.
type SignOptions struct {
	// Revision names the attestation to sign.
	Revision string
	// KeyFile holds the key (SPEC §4.1 key file): an Ed25519 seed (32 raw
	// bytes or 64 hex), or with HMAC the HMAC secret's bytes.
	KeyFile string
	// HMAC signs with HMAC-SHA256 instead of Ed25519.
	HMAC bool
	// KeyID labels the key in the signed header; empty means absent.
	KeyID string
	// Signer must equal the attestation's signer when it names one, and
	// supplies it when it does not; empty means use the attestation's.
	Signer string
	// Now stamps signed_at (UTC, RFC 3339); nil leaves signed_at absent.
	Now func() time.Time
}

// SignResult is what `tine sign` reports.
type SignResult struct {
	// Kind is "attestation" (SignArtifactResult's is "artifact").
	Kind string `json:"kind"`
	// OID is the new, signed attestation; Source the one it was made from.
	OID         string  `json:"oid"`
	Source      string  `json:"source"`
	Algorithm   string  `json:"algorithm"`
	Scheme      string  `json:"scheme"`
	KeyID       *string `json:"key_id"`
	Signer      string  `json:"signer"`
	SignedAt    *string `json:"signed_at"`
	Fingerprint string  `json:"fingerprint"`
}

// Sign makes a signed copy of an unsigned attestation (SPEC §4.5,
// tine-attest/1) and stores it. Objects are immutable, so the signed
// attestation is a new object with its own oid; the source is untouched.
// An attestation already carrying a block is refused
// (objects.ErrAlreadySigned): re-signing would hide the first signer.
func Sign(ctx context.Context, r *Repo, opt SignOptions) (*SignResult, error) {
	if r == nil {
		return nil, ErrNoRepository
	}
	id, err := r.Resolve(ctx, opt.Revision)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	o, err := r.objs.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if o.Type != objects.TypeAttestation {
		return nil, fmt.Errorf("sign %s: only attestations are signed in a repository, this is a %s: %w", id, o.Type, ErrBadInput)
	}
	payload, err := withSigner(o.Value, opt.Signer)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", id, err)
	}
	key, err := LoadSigningKey(opt.KeyFile, opt.HMAC)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	req := objects.AttestSignRequest{Key: key}
	if opt.KeyID != "" {
		req.KeyID = &opt.KeyID
	}
	if opt.Now != nil {
		at := opt.Now().UTC().Format(time.RFC3339)
		req.SignedAt = &at
	}
	signed, block, err := objects.AttestSign(r.algo, payload, req)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", id, err)
	}
	if _, err := r.WriteValidated(ctx, []*objects.Object{signed}, nil); err != nil {
		return nil, fmt.Errorf("sign %s: %w", id, err)
	}
	return &SignResult{
		Kind: string(objects.FamilyAttestation), OID: signed.ID.String(), Source: id.String(), Algorithm: block.Alg, Scheme: block.Scheme,
		KeyID: block.KeyID, Signer: *block.Signer, SignedAt: block.SignedAt, Fingerprint: key.Fingerprint(),
	}, nil
}

// LoadSigningKey reads a key file (SPEC §4.1) as an Ed25519 seed, or with
// hmac as an HMAC secret. Errors name the file. It is the one key loader
// of every signing verb (sign, attest, evaluate, gate run and ci).
func LoadSigningKey(path string, hmac bool) (*objects.SigningKey, error) {
	raw, err := ReadKeyFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	var key *objects.SigningKey
	if hmac {
		key, err = objects.NewHMACSigningKey(raw)
	} else {
		key, err = objects.NewEd25519SigningKey(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return key, nil
}

// withSigner applies SignOptions.Signer to the payload.
func withSigner(payload objects.Value, signer string) (objects.Value, error) {
	if signer == "" {
		return payload, nil
	}
	cur, ok := payload.Get("signer")
	if ok && cur.Kind != objects.KindNull {
		if cur.Kind != objects.KindString || cur.Str != signer {
			return payload, fmt.Errorf("the attestation's signer is %s, not %q: %w", describe(cur), signer, ErrBadInput)
		}
		return payload, nil
	}
	out := objects.ObjectValue()
	for _, m := range payload.Object {
		if m.Key != "signer" {
			out.Object = append(out.Object, m)
		}
	}
	out.Object = append(out.Object, objects.Member{Key: "signer", Value: objects.String(signer)})
	return out, nil
}

// describe names a JSON value for a message.
func describe(v objects.Value) string {
	if v.Kind == objects.KindString {
		return fmt.Sprintf("%q", v.Str)
	}
	return "a JSON " + v.Kind.String()
}
