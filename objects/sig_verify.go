package objects

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// The verdict states (SPEC §4.6). Only the two verified states carry OK.
const (
	// StateVerified: the caller's key agreed.
	StateVerified = "verified"
	// StateVerifiedTOFU: Ed25519 verified against the block's own embedded
	// public key (trust on first use: self-asserted, not authenticated).
	StateVerifiedTOFU = "verified-tofu"
	// StateUnsigned: no signature block, or a literal null.
	StateUnsigned = "unsigned"
	// StateNoKey: a block is present but no key for its algorithm was given.
	StateNoKey = "no-key"
	// StateMismatch: a key was applied and disagreed — the tamper verdict.
	StateMismatch = "mismatch"
	// StateError: the block, its scheme or the signed content is malformed.
	StateError = "error"
)

// Family names where a signature block lives and which schemes it admits.
type Family string

// The two signature families.
const (
	// FamilyArtifact is a .tine document; the block is at
	// metadata.integrity.signature, under tine-sig/1 or tine-sig/2.
	FamilyArtifact Family = "artifact"
	// FamilyAttestation is an attestation payload; the block is its
	// "signature" key, under tine-attest/1.
	FamilyAttestation Family = "attestation"
)

// Verdict is the outcome of checking a signature. It is always returned,
// never an error, so a caller that only reads OK cannot take a refusal for
// a pass. The labels are the block's, nil when absent or not strings.
type Verdict struct {
	OK        bool    `json:"ok"`
	State     string  `json:"state"`
	Algorithm *string `json:"algorithm"`
	KeyID     *string `json:"key_id"`
	Signer    *string `json:"signer"`
	SignedAt  *string `json:"signed_at"`
	Reason    string  `json:"reason"`
	// Fingerprint is KeyFingerprint of the key that verified (the caller's
	// public key or HMAC key, or the embedded key under TOFU); "" unless OK.
	Fingerprint string `json:"key_fingerprint,omitempty"`
}

// VerifyOptions are the keys a verifier holds.
type VerifyOptions struct {
	// HMACKey is the HMAC secret; nil means none was supplied.
	HMACKey []byte
	// PublicKey is a trusted Ed25519 public key, 32 raw bytes or 64 hex;
	// nil means none was supplied.
	PublicKey []byte
	// TrustEmbedded accepts the block's own public_key for Ed25519
	// (verdict verified-tofu) when no PublicKey is given.
	TrustEmbedded bool
}

// Verify checks the signature of doc in family f (SPEC §4.6). It rebuilds
// the five-key header from the block, so a verifier never signs what it
// happened to receive, and it checks the scheme before the algorithm.
func Verify(f Family, doc Value, opt VerifyOptions) Verdict {
	var block Value
	var present bool
	switch f {
	case FamilyAttestation:
		if doc.Kind != KindObject {
			return Verdict{State: StateError, Reason: "attestation payload is not an object"}
		}
		block, present = doc.Get("signature")
	case FamilyArtifact:
		if doc.Kind != KindObject {
			return Verdict{State: StateError, Reason: "artifact is not an object"}
		}
		md, _ := doc.Get("metadata")
		integ, _ := md.Get("integrity")
		block, present = integ.Get("signature")
	default:
		return Verdict{State: StateError, Reason: "unknown signature family"}
	}
	return verifyBlock(f, doc, block, present, opt)
}

// VerifyAttestation is Verify for an attestation payload.
func VerifyAttestation(payload Value, opt VerifyOptions) Verdict {
	return Verify(FamilyAttestation, payload, opt)
}

// VerifyArtifact is Verify for a parsed .tine document.
func VerifyArtifact(doc Value, opt VerifyOptions) Verdict {
	return Verify(FamilyArtifact, doc, opt)
}

// verifyBlock applies the ordered checks of SPEC §4.6 to one block.
func verifyBlock(f Family, doc, block Value, present bool, opt VerifyOptions) Verdict {
	if !present || block.Kind == KindNull {
		return Verdict{State: StateUnsigned, Reason: "no signature present"}
	}
	if block.Kind != KindObject {
		return Verdict{State: StateError, Reason: string(f) + " signature is not an object"}
	}
	alg, algOK := blockString(block, "alg")
	keyID, keyOK := blockString(block, "key_id")
	signer, signerOK := blockString(block, "signer")
	signedAt, atOK := blockString(block, "signed_at")
	v := Verdict{Algorithm: alg, KeyID: keyID, Signer: signer, SignedAt: signedAt}
	fail := func(state, reason string) Verdict {
		v.State, v.Reason = state, reason
		return v
	}
	// SPEC §4.6: the scheme first. Each block is verified under the scheme
	// it names, and only the family's own schemes are admitted.
	scheme, _ := blockString(block, "scheme")
	if scheme == nil || !familyScheme(f, *scheme) {
		return fail(StateError, "unsupported signature scheme")
	}
	if alg == nil || !algOK || !keyOK || !signerOK || !atOK {
		return fail(StateError, "malformed signature header")
	}
	if valueHexLen(*alg) == 0 {
		return fail(StateError, "unsupported signature algorithm")
	}
	value, _ := blockString(block, "value")
	if value == nil || len(*value) != valueHexLen(*alg) || !isHexText(*value) {
		return fail(StateError, "malformed signature value")
	}
	h := SigHeader{Alg: *alg, Scheme: *scheme, KeyID: keyID, SignedAt: signedAt, Signer: signer}
	msg, err := SigMessage(*scheme, doc, h)
	if err != nil {
		return fail(StateError, "malformed signed "+string(f)+" content")
	}
	if *alg == AlgHMACSHA256 {
		return verifyHMAC(v, msg, *value, opt.HMACKey)
	}
	return verifyEd25519(v, msg, *value, block, opt)
}

// verifyHMAC compares the hex MAC as text, as the reference does: an
// upper-case value is a mismatch, not a pass.
func verifyHMAC(v Verdict, msg []byte, value string, key []byte) Verdict {
	if key == nil {
		v.State, v.Reason = StateNoKey, "HMAC signature present but no key supplied"
		return v
	}
	if err := CheckHMACKey(key); err != nil {
		v.State, v.Reason = StateError, err.Error()
		return v
	}
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	want := hex.EncodeToString(m.Sum(nil))
	if subtle.ConstantTimeCompare([]byte(want), []byte(value)) != 1 {
		v.State, v.Reason = StateMismatch, "signature mismatch"
		return v
	}
	v.OK, v.State, v.Reason, v.Fingerprint = true, StateVerified, "ok", KeyFingerprint(key)
	return v
}

// verifyEd25519 checks against the caller's public key, else (with
// TrustEmbedded) the block's own public_key.
func verifyEd25519(v Verdict, msg []byte, value string, block Value, opt VerifyOptions) Verdict {
	var pub ed25519.PublicKey
	state := StateVerified
	switch {
	case opt.PublicKey != nil:
		p, err := ParseEd25519PublicKey(opt.PublicKey)
		if err != nil {
			v.State, v.Reason = StateError, "malformed ed25519 public key"
			return v
		}
		pub = p
	case opt.TrustEmbedded:
		emb, _ := blockString(block, "public_key")
		if emb == nil || len(*emb) != 64 || !isHexText(*emb) {
			v.State, v.Reason = StateError, "malformed ed25519 public key"
			return v
		}
		pub, _ = hex.DecodeString(*emb)
		state = StateVerifiedTOFU
	default:
		v.State, v.Reason = StateNoKey, "ed25519 signature present but no trusted public key"
		return v
	}
	sig, err := hex.DecodeString(value)
	if err != nil || len(pub) != ed25519.PublicKeySize || !ed25519.Verify(pub, msg, sig) {
		v.State, v.Reason = StateMismatch, "signature mismatch"
		return v
	}
	v.OK, v.State, v.Reason, v.Fingerprint = true, state, "ok", KeyFingerprint(pub)
	return v
}

// blockString reads a block member: its text when it is a string (nil
// otherwise), and whether it is well-formed — absent, null or a string.
func blockString(block Value, key string) (*string, bool) {
	m, ok := block.Get(key)
	if !ok || m.Kind == KindNull {
		return nil, true
	}
	if m.Kind != KindString {
		return nil, false
	}
	s := m.Str
	return &s, true
}

// familyScheme reports whether the family admits the scheme.
func familyScheme(f Family, scheme string) bool {
	if f == FamilyAttestation {
		return scheme == SchemeAttestV1
	}
	return scheme == SchemeSigV1 || scheme == SchemeSigV2
}

// EmbeddedPublicKey returns the Ed25519 public key the signature block of
// doc (family f) carries as public_key, when that member is 64 hex digits;
// ok is false otherwise. The key is self-asserted: it names who claims to
// have signed, not a key to trust. Verdicts do not use it (Verify does,
// only under TrustEmbedded); it lets a caller say which key signed when a
// given key disagreed.
func EmbeddedPublicKey(f Family, doc Value) (pub ed25519.PublicKey, ok bool) {
	if doc.Kind != KindObject {
		return nil, false
	}
	var block Value
	switch f {
	case FamilyAttestation:
		block, _ = doc.Get("signature")
	case FamilyArtifact:
		md, _ := doc.Get("metadata")
		integ, _ := md.Get("integrity")
		block, _ = integ.Get("signature")
	default:
		return nil, false
	}
	if block.Kind != KindObject {
		return nil, false
	}
	emb, _ := blockString(block, "public_key")
	if emb == nil || len(*emb) != 2*ed25519.PublicKeySize || !isHexText(*emb) {
		return nil, false
	}
	b, err := hex.DecodeString(*emb)
	if err != nil {
		return nil, false
	}
	return ed25519.PublicKey(b), true
}
