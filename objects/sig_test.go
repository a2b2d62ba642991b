package objects

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The SPEC §4.5 worked vector and the suite keys it uses (keys.json).
const (
	sigPayload = `{"claim":{"result":"pass"},"evidence_ids":[],"signer":"release-bot","target_id":"run:sha256:1111111111111111111111111111111111111111111111111111111111111111"}`
	sigValueA  = "6b9ea7e75bff9987920f417ba0419c12f6aadfe3088ec8ee8ce7eda271177164"
	keyA       = "0123456789abcdef0123456789abcdef"
	keyB       = "fedcba9876543210fedcba9876543210"
	edSeedHex  = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	edPubHex   = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
)

func sigParse(t testing.TB, text string) Value {
	t.Helper()
	v, err := ParseJSON([]byte(text), ParseOptions{})
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return v
}

func strp(s string) *string { return &s }

// workedHeader is the SPEC §4.5 header.
func workedHeader() SigHeader {
	return SigHeader{Alg: AlgHMACSHA256, Scheme: SchemeAttestV1, KeyID: strp("demo-key"),
		SignedAt: strp("2026-09-05T00:00:00Z"), Signer: strp("release-bot")}
}

// signedPayload returns the worked payload carrying the worked block, with
// the block edited by edit.
func signedPayload(t *testing.T, edit string) Value {
	t.Helper()
	block := `{"alg":"hmac-sha256","key_id":"demo-key","scheme":"tine-attest/1","signed_at":"2026-09-05T00:00:00Z","signer":"release-bot","value":"` + sigValueA + `"}`
	if edit != "" {
		block = edit
	}
	return sigParse(t, strings.TrimSuffix(sigPayload, "}")+`,"signature":`+block+`}`)
}

func TestSigWorkedVector(t *testing.T) {
	msg, err := SigMessage(SchemeAttestV1, sigParse(t, sigPayload), workedHeader())
	if err != nil {
		t.Fatal(err)
	}
	want := `opentine.attestation.v1:{"body":` + sigPayload + `,"header":{"alg":"hmac-sha256","key_id":"demo-key","scheme":"tine-attest/1","signed_at":"2026-09-05T00:00:00Z","signer":"release-bot"}}`
	if string(msg) != want {
		t.Fatalf("message\n got %s\nwant %s", msg, want)
	}
	k, err := NewHMACSigningKey([]byte(keyA))
	if err != nil {
		t.Fatal(err)
	}
	if got := k.SignMessage(msg); got != sigValueA {
		t.Fatalf("value %s, want %s", got, sigValueA)
	}
}

func TestSigHeaderNullsAndExcludedSlot(t *testing.T) {
	h := SigHeader{Alg: AlgHMACSHA256, Scheme: SchemeAttestV1, Signer: strp("release-bot")}
	a, err := SigMessage(SchemeAttestV1, sigParse(t, sigPayload), h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(a, []byte(`"header":{"alg":"hmac-sha256","key_id":null,"scheme":"tine-attest/1","signed_at":null,"signer":"release-bot"}}`)) {
		t.Fatalf("absent labels not signed as null: %s", a)
	}
	// The signature slot, null or a block, is outside the view.
	for _, slot := range []string{`null`, `{"alg":"x"}`} {
		b, err := SigMessage(SchemeAttestV1, sigParse(t, strings.TrimSuffix(sigPayload, "}")+`,"signature":`+slot+`}`), h)
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("signature %s changed the message (%v)", slot, err)
		}
	}
}

func TestSigArtifactViews(t *testing.T) {
	doc := sigParse(t, `{"run_id":"demo","metadata":{"model_info":"m","tags":["x"],"fork_reason":"r","integrity":{"digest":"d"},"project":"p"}}`)
	v1, err := SigMessage(SchemeSigV1, doc, SigHeader{Alg: AlgHMACSHA256, Scheme: SchemeSigV1})
	if err != nil {
		t.Fatal(err)
	}
	if want := `opentine.signature.v1:{"body":{"run_id":"demo"},"header":{"alg":"hmac-sha256","key_id":null,"scheme":"tine-sig/1","signed_at":null,"signer":null},"metadata":{"model_info":"m"}}`; string(v1) != want {
		t.Fatalf("v1\n got %s\nwant %s", v1, want)
	}
	v2, err := SigMessage(SchemeSigV2, doc, SigHeader{Alg: AlgHMACSHA256, Scheme: SchemeSigV2})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"metadata":{"fork_reason":"r","model_info":"m","project":"p","tags":["x"]}}`; !strings.HasSuffix(string(v2), want) {
		t.Fatalf("v2 metadata: %s", v2)
	}
	for _, bad := range []string{`[1]`, `{"metadata":[1]}`} {
		if _, err := SigMessage(SchemeSigV2, sigParse(t, bad), SigHeader{}); !HasReason(err, ReasonSigPayloadNotObject) {
			t.Errorf("%s: err %v, want sig.payload-not-object", bad, err)
		}
	}
	if _, err := SigMessage("tine-sig/9", doc, SigHeader{}); !errors.Is(err, ErrUnsupportedScheme) {
		t.Errorf("unknown scheme: %v", err)
	}
}

func TestSigNonFiniteRefused(t *testing.T) {
	doc := ObjectValue(Member{Key: "n", Value: Float(posInf())}, Member{Key: "signer", Value: String("s")})
	if _, err := SigMessage(SchemeAttestV1, doc, workedHeader()); !HasReason(err, ReasonCanonNonFinite) {
		t.Fatalf("err %v, want canon.non-finite", err)
	}
}

func posInf() float64 { z := 0.0; return 1 / z }

func TestSigKeyFloor(t *testing.T) {
	if _, err := NewHMACSigningKey([]byte(keyA[:15])); !errors.Is(err, ErrWeakHMACKey) || err.Error() != "HMAC key too short (15 bytes); use at least 16" {
		t.Fatalf("15-byte key: %v", err)
	}
	if _, err := NewHMACSigningKey(nil); !errors.Is(err, ErrWeakHMACKey) {
		t.Fatalf("empty key: %v", err)
	}
	if _, err := NewHMACSigningKey([]byte(keyA[:16])); err != nil {
		t.Fatalf("16-byte key refused: %v", err)
	}
}

func TestReadKeyFile(t *testing.T) {
	for in, want := range map[string]string{"k\n": "k", "k\n\n": "k\n", "k": "k", "k\r\n": "k\r", "": ""} {
		got, err := ReadKeyFile(strings.NewReader(in))
		if err != nil || string(got) != want {
			t.Errorf("ReadKeyFile(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ReadKeyFile(bytes.NewReader(make([]byte, MaxKeyFileBytes+1))); !errors.Is(err, ErrKeyFileTooLarge) {
		t.Errorf("oversized key file: %v", err)
	}
	if _, err := ReadKeyFile(bytes.NewReader(make([]byte, MaxKeyFileBytes))); err != nil {
		t.Errorf("1 MiB key file refused: %v", err)
	}
}

func TestEd25519KeyForms(t *testing.T) {
	seed, _ := hex.DecodeString(edSeedHex)
	for _, in := range [][]byte{seed, []byte(edSeedHex), []byte("  " + strings.ToUpper(edSeedHex) + "\n")} {
		k, err := NewEd25519SigningKey(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := hex.EncodeToString(k.PublicKey()); got != edPubHex {
			t.Fatalf("public key %s, want %s", got, edPubHex)
		}
	}
	for _, bad := range []string{"short", edSeedHex[:62], strings.Repeat("zz", 32)} {
		if _, err := ParseEd25519PublicKey([]byte(bad)); !errors.Is(err, ErrBadKey) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
