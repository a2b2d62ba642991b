package plumbing

import (
	"bytes"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// KeyMismatch explains a mismatch verdict of an Ed25519 signature checked
// against a given public key when the signature block carries another
// key. The verdict's reason stays "signature mismatch" (SPEC §4.6: it is
// what conformance compares); this is what tine adds where it shows the
// verdict to a user. Fingerprints are objects.KeyFingerprint, as keygen
// prints them.
type KeyMismatch struct {
	// EmbeddedKey is the fingerprint of the public key the block carries.
	EmbeddedKey string `json:"embedded_key"`
	// GivenKey is the fingerprint of the key the check used (--pubkey, or
	// the public half of --key-file).
	GivenKey string `json:"given_key"`
	// SignedByEmbedded reports that the signature verifies against the
	// embedded key: that key signed it (self-asserted: whether to trust it
	// is the caller's choice, --trust-embedded-key or --pin). When false,
	// the content was altered after signing, or the block forged.
	SignedByEmbedded bool `json:"signed_by_embedded"`
}

// String says which key signed, and which was given.
func (k *KeyMismatch) String() string {
	if k.SignedByEmbedded {
		return fmt.Sprintf("signed by key %s, not by the given key %s", k.EmbeddedKey, k.GivenKey)
	}
	return fmt.Sprintf("it names key %s, not the given key %s, and does not verify against that key either (altered after signing)", k.EmbeddedKey, k.GivenKey)
}

// ExplainKeyMismatch explains v, the verdict of doc (family f) under
// vopt: nil unless v is an Ed25519 mismatch against a given public key
// and the block embeds a different, well-formed one. tine verify and tine
// import show it beside the verdict, which it leaves as it is.
func ExplainKeyMismatch(f objects.Family, doc objects.Value, v objects.Verdict, vopt objects.VerifyOptions) *KeyMismatch {
	if v.State != objects.StateMismatch || v.Algorithm == nil || *v.Algorithm != objects.AlgEd25519 || vopt.PublicKey == nil {
		return nil
	}
	given, err := objects.ParseEd25519PublicKey(vopt.PublicKey)
	if err != nil {
		return nil
	}
	emb, ok := objects.EmbeddedPublicKey(f, doc)
	if !ok || bytes.Equal(emb, given) {
		return nil
	}
	tofu := objects.Verify(f, doc, objects.VerifyOptions{TrustEmbedded: true})
	return &KeyMismatch{EmbeddedKey: objects.KeyFingerprint(emb), GivenKey: objects.KeyFingerprint(given), SignedByEmbedded: tofu.OK}
}
