package objects

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestVerifyStates(t *testing.T) {
	hdr := func(alg, scheme, keyID, value string) string {
		return `{"alg":` + alg + `,"key_id":` + keyID + `,"scheme":` + scheme + `,"signed_at":"2026-09-05T00:00:00Z","signer":"release-bot","value":` + value + `}`
	}
	good := `"` + sigValueA + `"`
	cases := []struct {
		name, block string
		key         []byte
		state       string
		reason      string
		keyID       string // "" for a nil label
	}{
		{"verified", "", []byte(keyA), StateVerified, "ok", "demo-key"},
		{"wrong key", "", []byte(keyB), StateMismatch, "signature mismatch", "demo-key"},
		{"key id added", hdr(`"hmac-sha256"`, `"tine-attest/1"`, `"other"`, good), []byte(keyA), StateMismatch, "signature mismatch", "other"},
		{"no key", "", nil, StateNoKey, "HMAC signature present but no key supplied", "demo-key"},
		{"short key", "", []byte(keyA[:15]), StateError, "HMAC key too short (15 bytes); use at least 16", "demo-key"},
		{"null slot", "null", []byte(keyA), StateUnsigned, "no signature present", ""},
		{"not an object", `"00"`, []byte(keyA), StateError, "attestation signature is not an object", ""},
		{"scheme before alg", hdr(`"md5"`, `"nope"`, `"demo-key"`, good), []byte(keyA), StateError, "unsupported signature scheme", "demo-key"},
		{"artifact scheme", hdr(`"hmac-sha256"`, `"tine-sig/2"`, `"demo-key"`, good), []byte(keyA), StateError, "unsupported signature scheme", "demo-key"},
		{"unknown alg", hdr(`"md5"`, `"tine-attest/1"`, `"demo-key"`, good), []byte(keyA), StateError, "unsupported signature algorithm", "demo-key"},
		{"non-string key_id", hdr(`"hmac-sha256"`, `"tine-attest/1"`, `7`, good), []byte(keyA), StateError, "malformed signature header", ""},
		{"alg missing", hdr(`null`, `"tine-attest/1"`, `"demo-key"`, good), []byte(keyA), StateError, "malformed signature header", "demo-key"},
		{"value not hex", hdr(`"hmac-sha256"`, `"tine-attest/1"`, `"demo-key"`, `"`+strings.Repeat("z", 64)+`"`), []byte(keyA), StateError, "malformed signature value", "demo-key"},
		{"value short", hdr(`"hmac-sha256"`, `"tine-attest/1"`, `"demo-key"`, `"abab"`), []byte(keyA), StateError, "malformed signature value", "demo-key"},
		{"value upper case", hdr(`"hmac-sha256"`, `"tine-attest/1"`, `"demo-key"`, `"`+strings.ToUpper(sigValueA)+`"`), []byte(keyA), StateMismatch, "signature mismatch", "demo-key"},
	}
	for _, c := range cases {
		v := VerifyAttestation(signedPayload(t, c.block), VerifyOptions{HMACKey: c.key})
		if v.State != c.state || v.Reason != c.reason || v.OK != (c.state == StateVerified) {
			t.Errorf("%s: got %s %q ok=%v, want %s %q", c.name, v.State, v.Reason, v.OK, c.state, c.reason)
		}
		if got := deref(v.KeyID); got != c.keyID {
			t.Errorf("%s: key_id %q, want %q", c.name, got, c.keyID)
		}
	}
	absent := VerifyAttestation(sigParse(t, sigPayload), VerifyOptions{HMACKey: []byte(keyA)})
	if absent.State != StateUnsigned || absent.Algorithm != nil {
		t.Errorf("absent slot: %+v", absent)
	}
	if v := Verify("nonsense", sigParse(t, sigPayload), VerifyOptions{}); v.State != StateError || v.OK {
		t.Errorf("unknown family: %+v", v)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestEd25519SignAndTOFU(t *testing.T) {
	k, err := NewEd25519SigningKey([]byte(edSeedHex))
	if err != nil {
		t.Fatal(err)
	}
	payload := sigParse(t, sigPayload)
	o, block, err := AttestSign(SHA256, payload, AttestSignRequest{Key: k, KeyID: strp("ed-demo"), SignedAt: strp("2026-09-05T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	// The suite's TOFU vector carries exactly this signature.
	if want := "6a9fcd4ac3b13101a3c2cbc31e02e7e8d68582ac8132d5384ec36a688471588d9241eec37a92959dd9898d24b824ee0cd90177a71b08c80f41b911abb0d9af0e"; block.Value != want || block.PublicKey != edPubHex {
		t.Fatalf("block %+v", block)
	}
	pub, _ := hex.DecodeString(edPubHex)
	other, _ := NewEd25519SigningKey([]byte(strings.Repeat("ab", 32)))
	checks := []struct {
		name   string
		opt    VerifyOptions
		state  string
		reason string
	}{
		{"pinned key", VerifyOptions{PublicKey: pub}, StateVerified, "ok"},
		{"pinned hex", VerifyOptions{PublicKey: []byte(edPubHex)}, StateVerified, "ok"},
		{"tofu", VerifyOptions{TrustEmbedded: true}, StateVerifiedTOFU, "ok"},
		{"no key", VerifyOptions{HMACKey: []byte(keyA)}, StateNoKey, "ed25519 signature present but no trusted public key"},
		{"other key", VerifyOptions{PublicKey: other.PublicKey(), TrustEmbedded: true}, StateMismatch, "signature mismatch"},
		{"bad key", VerifyOptions{PublicKey: []byte("nope")}, StateError, "malformed ed25519 public key"},
	}
	for _, c := range checks {
		v := VerifyAttestation(o.Value, c.opt)
		if v.State != c.state || v.Reason != c.reason {
			t.Errorf("%s: %s %q, want %s %q", c.name, v.State, v.Reason, c.state, c.reason)
		}
		if v.OK && v.Fingerprint != KeyFingerprint(pub) {
			t.Errorf("%s: fingerprint %s", c.name, v.Fingerprint)
		}
	}
	// A swapped embedded key fails TOFU: the signature is not its own.
	swapped := strings.Replace(string(o.Body), edPubHex, hex.EncodeToString(other.PublicKey()), 1)
	if v := VerifyAttestation(sigParse(t, swapped), VerifyOptions{TrustEmbedded: true}); v.State != StateMismatch {
		t.Errorf("swapped embedded key: %+v", v)
	}
	broken := strings.Replace(string(o.Body), edPubHex, "zz", 1)
	if v := VerifyAttestation(sigParse(t, broken), VerifyOptions{TrustEmbedded: true}); v.State != StateError || v.Reason != "malformed ed25519 public key" {
		t.Errorf("malformed embedded key: %+v", v)
	}
}

// TestAttestSignRedactsFirst is SPEC §4.5's writer vector: the api_key is
// signed (and stored) as [REDACTED].
func TestAttestSignRedactsFirst(t *testing.T) {
	k, _ := NewHMACSigningKey([]byte(keyA))
	payload := sigParse(t, `{"claim":{"api_key":"sk-live-0123456789abcdefghij","result":"pass"},"signer":"release-bot","target_id":"run:sha256:e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6"}`)
	o, block, err := AttestSign(SHA256, payload, AttestSignRequest{Key: k})
	if err != nil {
		t.Fatal(err)
	}
	if block.Value != "d6bf8750cf4e60941de75f2cc7dcf94e3b4f8a83eda2225a1683ca09caf194c5" {
		t.Errorf("value %s", block.Value)
	}
	if o.ID.String() != "attestation:sha256:4e57f9127298339041dd84b4286010faedfd83236b520196337f481b1e5d8315" {
		t.Errorf("oid %s", o.ID)
	}
	if strings.Contains(string(o.Body), "sk-live") || !strings.Contains(string(o.Body), `"signature":{"alg":"hmac-sha256","scheme":"tine-attest/1","signer":"release-bot","value":"d6bf`) {
		t.Errorf("body %s", o.Body)
	}
	if v := VerifyAttestation(o.Value, VerifyOptions{HMACKey: []byte(keyA)}); !v.OK {
		t.Errorf("stored attestation does not verify: %+v", v)
	}
}

func TestAttestSignRefusals(t *testing.T) {
	k, _ := NewHMACSigningKey([]byte(keyA))
	for text, want := range map[string]error{
		`{"target_id":"x"}`:                        ErrMissingSigner,
		`{"signer":"","target_id":"x"}`:            ErrMissingSigner,
		`{"signer":7}`:                             ErrMissingSigner,
		`{"signer":"a","signature":{"alg":"x"}}`:   ErrAlreadySigned,
		`{"signer":"a","signature":"not a block"}`: ErrAlreadySigned,
	} {
		if _, _, err := AttestSign(SHA256, sigParse(t, text), AttestSignRequest{Key: k}); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", text, err, want)
		}
	}
	if _, _, err := AttestSign(SHA256, sigParse(t, `[1]`), AttestSignRequest{Key: k}); !HasReason(err, ReasonSigPayloadNotObject) {
		t.Errorf("array payload: %v", err)
	}
	// A literal null slot, as older writers stored, is signable.
	if _, _, err := AttestSign(SHA256, sigParse(t, `{"signer":"a","signature":null,"target_id":"run:sha256:`+strings.Repeat("1", 64)+`"}`), AttestSignRequest{Key: k}); err != nil {
		t.Errorf("null slot: %v", err)
	}
}

// TestVerifyArtifact signs a document with tine-sig/2 and checks what the
// v2 view covers, and that a v1 block keeps its narrower view.
func TestVerifyArtifact(t *testing.T) {
	k, _ := NewHMACSigningKey([]byte(keyA))
	doc := sigParse(t, `{"run_id":"demo","status":"completed","metadata":{"model_info":"m","tags":["a"],"integrity":{"algorithm":"sha256","digest":"00"}}}`)
	withBlock := func(scheme string, edit func(string) string) Value {
		b, err := SignDocument(doc, SignRequest{Scheme: scheme, Key: k, Signer: strp("ci")})
		if scheme == SchemeSigV1 { // verify-only: build the legacy block by hand
			if !errors.Is(err, ErrUnsupportedScheme) {
				t.Fatalf("tine-sig/1 written: %v", err)
			}
			b = SigBlock{Alg: AlgHMACSHA256, Scheme: SchemeSigV1, Signer: strp("ci")}
			msg, _ := SigMessage(SchemeSigV1, doc, b.Header())
			b.Value = k.SignMessage(msg)
		} else if err != nil {
			t.Fatal(err)
		}
		blk, _ := CanonV3(b.ToValue())
		text := strings.Replace(`{"run_id":"demo","status":"completed","metadata":{"model_info":"m","tags":["a"],"integrity":{"algorithm":"sha256","digest":"00","signature":BLOCK}}}`, "BLOCK", string(blk), 1)
		return sigParse(t, edit(text))
	}
	same := func(s string) string { return s }
	retag := func(s string) string { return strings.Replace(s, `["a"]`, `["b"]`, 1) }
	redigest := func(s string) string { return strings.Replace(s, `"digest":"00"`, `"digest":"ff"`, 1) }
	rerun := func(s string) string { return strings.Replace(s, `"run_id":"demo"`, `"run_id":"x"`, 1) }
	for _, c := range []struct {
		name   string
		scheme string
		edit   func(string) string
		state  string
	}{
		{"v2 intact", SchemeSigV2, same, StateVerified},
		{"v2 tags covered", SchemeSigV2, retag, StateMismatch},
		{"v2 integrity excluded", SchemeSigV2, redigest, StateVerified},
		{"v2 body covered", SchemeSigV2, rerun, StateMismatch},
		{"v1 intact", SchemeSigV1, same, StateVerified},
		{"v1 tags not covered", SchemeSigV1, retag, StateVerified},
		{"v1 body covered", SchemeSigV1, rerun, StateMismatch},
	} {
		v := VerifyArtifact(withBlock(c.scheme, c.edit), VerifyOptions{HMACKey: []byte(keyA)})
		if v.State != c.state {
			t.Errorf("%s: %s (%s)", c.name, v.State, v.Reason)
		}
	}
	if v := VerifyArtifact(doc, VerifyOptions{HMACKey: []byte(keyA)}); v.State != StateUnsigned {
		t.Errorf("unsigned artifact: %+v", v)
	}
}

// TestEmbeddedPublicKey: the key a block carries, read where each family
// keeps it; anything but 64 hex digits in an object is no key.
func TestEmbeddedPublicKey(t *testing.T) {
	key := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name string
		f    Family
		doc  string
		ok   bool
	}{
		{"attestation", FamilyAttestation, `{"signature":{"public_key":"` + key + `"}}`, true},
		{"artifact", FamilyArtifact, `{"metadata":{"integrity":{"signature":{"public_key":"` + key + `"}}}}`, true},
		{"artifact block read as an attestation", FamilyAttestation, `{"metadata":{"integrity":{"signature":{"public_key":"` + key + `"}}}}`, false},
		{"no key", FamilyAttestation, `{"signature":{"alg":"ed25519"}}`, false},
		{"short key", FamilyAttestation, `{"signature":{"public_key":"` + key[:62] + `"}}`, false},
		{"not hex", FamilyAttestation, `{"signature":{"public_key":"` + strings.Repeat("zz", 32) + `"}}`, false},
		{"not a string", FamilyAttestation, `{"signature":{"public_key":7}}`, false},
		{"block not an object", FamilyAttestation, `{"signature":"` + key + `"}`, false},
		{"doc not an object", FamilyAttestation, `[1]`, false},
	} {
		pub, ok := EmbeddedPublicKey(tc.f, mustParse(t, tc.doc))
		if ok != tc.ok || ok && hex.EncodeToString(pub) != key {
			t.Errorf("%s: %x %v, want ok %v", tc.name, pub, ok, tc.ok)
		}
	}
}
