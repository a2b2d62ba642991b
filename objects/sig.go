package objects

import "errors"

// Signature schemes, algorithms and bounds (SPEC Part 4). Two families share
// one mechanism: the .tine artifact (tine-sig/1, tine-sig/2, block at
// metadata.integrity.signature) and the v3 attestation (tine-attest/1,
// block at the payload's "signature" key).
const (
	// SchemeSigV1 is the legacy artifact scheme: verified, never written
	// (SPEC §4.3). Its metadata coverage is a frozen allowlist.
	SchemeSigV1 = "tine-sig/1"
	// SchemeSigV2 is the artifact scheme writers use: body plus every
	// metadata key except "integrity" (SPEC §4.4).
	SchemeSigV2 = "tine-sig/2"
	// SchemeAttestV1 is the attestation scheme: the payload minus its
	// "signature" key (SPEC §4.5).
	SchemeAttestV1 = "tine-attest/1"

	// AlgHMACSHA256 is HMAC-SHA256 over the message; the value is 64 hex.
	AlgHMACSHA256 = "hmac-sha256"
	// AlgEd25519 is pure Ed25519 over the message; the value is 128 hex.
	AlgEd25519 = "ed25519"

	// MinHMACKeyBytes is the HMAC key floor, enforced when signing and
	// when verifying (SPEC §4.1: a 15-byte key is refused both ways).
	MinHMACKeyBytes = 16
	// MaxKeyFileBytes bounds a key file (SPEC §4.1).
	MaxKeyFileBytes = 1 << 20

	// sigPrefixArtifact is the domain prefix of both artifact schemes; they
	// are told apart by the scheme string inside the signed header.
	sigPrefixArtifact = "opentine.signature.v1:"
	// sigPrefixAttest is the attestation family's own prefix, so no
	// signature can be lifted between the families.
	sigPrefixAttest = "opentine.attestation.v1:"
)

// Signature errors. Each is wrapped with what it concerns; test with
// errors.Is. Verification never returns them: it returns a Verdict.
var (
	// ErrUnsupportedScheme reports a scheme other than the three above.
	ErrUnsupportedScheme = errors.New("unsupported signature scheme")
	// ErrUnsupportedAlgorithm reports an algorithm other than hmac-sha256
	// and ed25519.
	ErrUnsupportedAlgorithm = errors.New("unsupported signature algorithm")
	// ErrWeakHMACKey reports an HMAC key shorter than MinHMACKeyBytes.
	ErrWeakHMACKey = errors.New("HMAC key too short")
	// ErrBadKey reports key material that is not a key of the algorithm
	// (an Ed25519 key that is neither 32 bytes nor 64 hex).
	ErrBadKey = errors.New("malformed key")
	// ErrKeyFileTooLarge reports a key file over MaxKeyFileBytes.
	ErrKeyFileTooLarge = errors.New("key file too large")
	// ErrMissingSigner reports an attestation to sign that names no signer
	// (SPEC §4.5: the header signer is the payload's signer).
	ErrMissingSigner = errors.New("attestation names no signer")
	// ErrAlreadySigned reports an attestation that already carries a
	// signature block; signing it again would hide the first signer.
	ErrAlreadySigned = errors.New("attestation is already signed")
)

// sigV1MetadataKeys is tine-sig/1's metadata coverage. SPEC §4.3: FROZEN —
// it is the definition older signatures were computed against, so adding a
// key would falsify genuine signatures; tags and fork_reason stay outside.
var sigV1MetadataKeys = []string{
	"model_info", "system_prompt", "user_prompt", "forked_from", "fork_point",
	"warnings", "replay", "context", "next_harness", "migration", "fork",
}

// SigHeader is the signed header (SPEC §4.2). The message always carries
// all five keys; an absent optional label (nil) is signed as null, so it
// cannot be added afterwards without the verdict going mismatch. Alg and
// Scheme are signed as null when empty.
type SigHeader struct {
	Alg      string
	Scheme   string
	KeyID    *string
	SignedAt *string
	Signer   *string
}

// value returns the five-key header object, nulls included.
func (h SigHeader) value() Value {
	req := func(s string) Value {
		if s == "" {
			return Null()
		}
		return String(s)
	}
	opt := func(s *string) Value {
		if s == nil {
			return Null()
		}
		return String(*s)
	}
	return ObjectValue(
		Member{Key: "alg", Value: req(h.Alg)},
		Member{Key: "key_id", Value: opt(h.KeyID)},
		Member{Key: "scheme", Value: req(h.Scheme)},
		Member{Key: "signed_at", Value: opt(h.SignedAt)},
		Member{Key: "signer", Value: opt(h.Signer)},
	)
}

// SigBlock is a stored signature block (SPEC §4.1): {alg, scheme, key_id?,
// signer?, signed_at?, value, public_key?}. Absent labels are nil.
type SigBlock struct {
	Alg      string
	Scheme   string
	KeyID    *string
	SignedAt *string
	Signer   *string
	// Value is the lowercase hex MAC or signature.
	Value string
	// PublicKey is the Ed25519 public key as 64 hex; "" for HMAC.
	PublicKey string
}

// Header returns the signed header the block was computed under.
func (b SigBlock) Header() SigHeader {
	return SigHeader{Alg: b.Alg, Scheme: b.Scheme, KeyID: b.KeyID, SignedAt: b.SignedAt, Signer: b.Signer}
}

// ToValue returns the block as stored: the null labels dropped (SPEC §4.1).
func (b SigBlock) ToValue() Value {
	ms := []Member{{Key: "alg", Value: String(b.Alg)}}
	if b.KeyID != nil {
		ms = append(ms, Member{Key: "key_id", Value: String(*b.KeyID)})
	}
	if b.PublicKey != "" {
		ms = append(ms, Member{Key: "public_key", Value: String(b.PublicKey)})
	}
	ms = append(ms, Member{Key: "scheme", Value: String(b.Scheme)})
	if b.SignedAt != nil {
		ms = append(ms, Member{Key: "signed_at", Value: String(*b.SignedAt)})
	}
	if b.Signer != nil {
		ms = append(ms, Member{Key: "signer", Value: String(*b.Signer)})
	}
	ms = append(ms, Member{Key: "value", Value: String(b.Value)})
	return ObjectValue(ms...)
}

// valueHexLen is the hex length of each algorithm's value (SPEC §4.1).
func valueHexLen(alg string) int {
	switch alg {
	case AlgHMACSHA256:
		return 64
	case AlgEd25519:
		return 128
	}
	return 0
}

// without returns the members of object v except key, as a new object.
func without(v Value, key string) Value {
	ms := make([]Member, 0, len(v.Object))
	for _, m := range v.Object {
		if m.Key != key {
			ms = append(ms, m)
		}
	}
	return ObjectValue(ms...)
}
