package objects

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Suite keys (testdata/conformance/keys.json).
const (
	suiteEd25519Seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	suiteHMACA       = "0123456789abcdef0123456789abcdef"
	suiteHMACCompat  = "compat-golden-signing-key-000001"
)

func mustHMAC(t *testing.T, key string) *SigningKey {
	t.Helper()
	k, err := NewHMACSigningKey([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustEd25519(t *testing.T) *SigningKey {
	t.Helper()
	k, err := NewEd25519SigningKey([]byte(suiteEd25519Seed))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func readArtifactFile(t *testing.T, name string) Value {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(artifactDir, name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ParseArtifact(b)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// stripSignature returns doc without metadata.integrity.signature, and the
// block it held.
func stripSignature(t *testing.T, doc Value) (Value, Value) {
	t.Helper()
	md, _ := doc.Get("metadata")
	integ, _ := md.Get("integrity")
	block, ok := integ.Get("signature")
	if !ok {
		t.Fatal("fixture holds no signature block")
	}
	return withMember(doc, "metadata", withMember(md, "integrity", without(integ, "signature"))), block
}

// label returns a block's optional string label, nil when absent.
func label(block Value, key string) *string {
	v, ok := block.Get(key)
	if !ok {
		return nil
	}
	return &v.Str
}

// TestSignArtifactReproducesOpenTine strips the signature from .tine files
// OpenTine 0.8.0 wrote (its compat fixtures, pinned by the digests in
// vector file 51-compat) and signs them again with the suite's key and the
// same labels: tine must write the very bytes OpenTine wrote. The second
// fixture has no labels, as `opentine sign` writes by default.
func TestSignArtifactReproducesOpenTine(t *testing.T) {
	for name, sum := range map[string]string{
		"v0_8_0_artifact_signed.tine":             "cc087b36b283c2c97744e1b6f4ea656a337396146ea4a08481f680cfd7abcded",
		"v0_8_0_artifact_signed_fork_reason.tine": "2997f88a18d303f5042d2f7cc830e388cb9d53b40ee4e0025b60056492349e5c",
	} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(artifactDir, "opentine", name))
			if err != nil {
				t.Fatal(err)
			}
			if got := sha256.Sum256(want); hex.EncodeToString(got[:]) != sum {
				t.Fatalf("%s is not the fixture the conformance suite pins", name)
			}
			doc, err := ParseArtifact(want)
			if err != nil {
				t.Fatal(err)
			}
			unsigned, block := stripSignature(t, doc)
			res, err := SignArtifact(unsigned, ArtifactSignRequest{
				Key: mustHMAC(t, suiteHMACCompat), KeyID: label(block, "key_id"), Signer: label(block, "signer"), SignedAt: label(block, "signed_at"),
			})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res.Bytes, want) {
				t.Fatalf("tine wrote\n%s\nOpenTine wrote\n%s", res.Bytes, want)
			}
			if res.Redacted != 0 {
				t.Fatalf("redacted %d values of a clean artifact", res.Redacted)
			}
		})
	}
}

// TestSignArtifactVectorValue signs the document of vector
// sig.v2.hmac-value (42-signing) with its key and header: the block's value
// must be the vector's. The vector's document has no integrity digest, so
// one is added first; metadata.integrity is outside the tine-sig/2 view,
// so the value cannot change.
func TestSignArtifactVectorValue(t *testing.T) {
	doc := fxObj("cache", ObjectValue(), "created_at", 0, "format_version", 2,
		"graph", fxObj("order", Array(), "steps", ObjectValue()), "manifest", ObjectValue(),
		"metadata", fxObj("fork_reason", "explored approach A", "model_info", "anthropic/claude-sonnet-5", "project", "opentine",
			"system_prompt", "be careful", "tags", Array(String("release")), "user_prompt", "summarize"),
		"policies", ObjectValue(), "refs", ObjectValue(), "run_id", "demo", "status", "completed", "transcript", Array())
	digest, err := IntegrityDigest(doc)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := doc.Get("metadata")
	doc = withMember(doc, "metadata", withMember(md, "integrity", fxObj("algorithm", "sha256", "digest", digest)))
	keyID, signer, at := "demo-key", "release-bot", "2026-09-05T00:00:00Z"
	res, err := SignArtifact(doc, ArtifactSignRequest{Key: mustHMAC(t, suiteHMACA), KeyID: &keyID, Signer: &signer, SignedAt: &at})
	if err != nil {
		t.Fatal(err)
	}
	if res.Block.Value != "8fa96b29e652b02fd9f5b2cf753e8b9778138bcd2280cb2a68bbb02ce98249ae" {
		t.Fatalf("value = %s, want the vector's", res.Block.Value)
	}
	if res.Block.Scheme != SchemeSigV2 || res.Block.Alg != AlgHMACSHA256 {
		t.Fatalf("block = %+v", res.Block)
	}
}

// TestSignArtifactEd25519RoundTrip signs with Ed25519, verifies with the
// public key and with the embedded one, and shows that an edit after
// signing — even with the integrity digest recomputed to match — makes
// the verdict mismatch.
func TestSignArtifactEd25519RoundTrip(t *testing.T) {
	key := mustEd25519(t)
	signer := "ci"
	res, err := SignArtifact(readArtifactFile(t, "retry.tine"), ArtifactSignRequest{Key: key, Signer: &signer})
	if err != nil {
		t.Fatal(err)
	}
	again, err := SignArtifact(readArtifactFile(t, "retry.tine"), ArtifactSignRequest{Key: key, Signer: &signer})
	if err != nil || !bytes.Equal(res.Bytes, again.Bytes) {
		t.Fatalf("Ed25519 signing is not deterministic (err %v)", err)
	}
	if res.Block.PublicKey != hex.EncodeToString(key.PublicKey()) || len(res.Block.Value) != 128 {
		t.Fatalf("block = %+v", res.Block)
	}
	doc, err := ParseArtifact(res.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if v := VerifyArtifact(doc, VerifyOptions{PublicKey: key.PublicKey()}); v.State != StateVerified {
		t.Fatalf("verdict %s (%s)", v.State, v.Reason)
	}
	if v := VerifyArtifact(doc, VerifyOptions{TrustEmbedded: true}); v.State != StateVerifiedTOFU {
		t.Fatalf("TOFU verdict %s (%s)", v.State, v.Reason)
	}
	other, _ := NewEd25519SigningKey(bytes.Repeat([]byte{7}, 32))
	if v := VerifyArtifact(doc, VerifyOptions{PublicKey: other.PublicKey()}); v.State != StateMismatch {
		t.Fatalf("wrong key: verdict %s", v.State)
	}
	tampered := withMember(doc, "run_id", String("someone-else"))
	digest, _ := IntegrityDigest(tampered)
	md, _ := tampered.Get("metadata")
	integ, _ := md.Get("integrity")
	tampered = withMember(tampered, "metadata", withMember(md, "integrity", withMember(integ, "digest", String(digest))))
	if integ := VerifyIntegrity(tampered); !integ.OK {
		t.Fatalf("tampered integrity: %s", integ.Reason)
	}
	if v := VerifyArtifact(tampered, VerifyOptions{PublicKey: key.PublicKey()}); v.State != StateMismatch {
		t.Fatalf("tampered body: verdict %s", v.State)
	}
	mdTamper := withMember(doc, "metadata", withMember(md, "user_prompt", String("edited")))
	if v := VerifyArtifact(mdTamper, VerifyOptions{PublicKey: key.PublicKey()}); v.State != StateMismatch {
		t.Fatalf("tampered metadata: verdict %s", v.State)
	}
}

// TestSignArtifactRedacts: a credential left in the run is redacted before
// the digest and the signature are computed, as OpenTine's writer does.
func TestSignArtifactRedacts(t *testing.T) {
	in := readArtifactFile(t, "fix.tine")
	res, err := SignArtifact(in, ArtifactSignRequest{Key: mustHMAC(t, fixtureHMACKey)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Redacted != 1 || bytes.Contains(res.Bytes, []byte("sk-proj-")) || !bytes.Contains(res.Bytes, []byte(`"[REDACTED]"`)) {
		t.Fatalf("redacted %d; output holds the secret: %v", res.Redacted, bytes.Contains(res.Bytes, []byte("sk-proj-")))
	}
	old, _ := IntegrityDigest(in)
	if res.Digest == old {
		t.Fatal("the digest was not recomputed over the redacted run")
	}
}

// TestSignArtifactRefuses covers every refusal of the writer.
func TestSignArtifactRefuses(t *testing.T) {
	key := mustHMAC(t, fixtureHMACKey)
	fix := readArtifactFile(t, "fix.tine")
	setStatus := func(doc Value, s string) Value {
		doc = withMember(doc, "status", String(s))
		d, _ := IntegrityDigest(doc)
		md, _ := doc.Get("metadata")
		return withMember(doc, "metadata", withMember(md, "integrity", fxObj("algorithm", "sha256", "digest", d)))
	}
	draft := withMember(fix, "draft", Bool(true))
	d, _ := IntegrityDigest(draft)
	md, _ := draft.Get("metadata")
	draft = withMember(draft, "metadata", withMember(md, "integrity", fxObj("algorithm", "sha256", "digest", d)))
	for _, c := range []struct {
		name string
		doc  Value
		want error
		text string
	}{
		{"tampered", readArtifactFile(t, "tampered.tine"), ErrArtifactIntegrity, "digest mismatch"},
		{"no integrity", readArtifactFile(t, "worked_vector.tine"), ErrArtifactIntegrity, "missing integrity digest"},
		{"signed", readArtifactFile(t, "fix_signed.tine"), ErrArtifactSigned, `by "ci"`},
		{"v1", readArtifactFile(t, "fix_v1.tine"), ErrArtifactNotSignable, "format_version 1"},
		{"running", setStatus(fix, "running"), ErrArtifactNotSignable, "status is running"},
		{"paused", setStatus(fix, "paused"), ErrArtifactNotSignable, "status is paused"},
		{"draft", draft, ErrArtifactNotSignable, "draft"},
		{"not a run", Array(), ErrArtifactNotObject, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := SignArtifact(c.doc, ArtifactSignRequest{Key: key})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.want, c.text)
			}
		})
	}
	if _, err := SignArtifact(fix, ArtifactSignRequest{}); !errors.Is(err, ErrBadKey) {
		t.Fatalf("no key: err = %v", err)
	}
	if _, err := SignArtifact(setStatus(fix, "failed"), ArtifactSignRequest{Key: key}); err != nil {
		t.Fatalf("a failed run is signed: %v", err)
	}
}

// TestEncodeArtifactPythonSpelling pins json.dumps(indent=2,
// sort_keys=True)'s spelling of the cases a run record holds.
func TestEncodeArtifactPythonSpelling(t *testing.T) {
	doc := fxObj("z", Array(Int(1), Float(1e16), Float(math.Copysign(0, -1)), Float(0.0001)), "a", fxObj("é", "☃\U0001F600", "e", ObjectValue(), "l", Array()), "n", Null())
	got, err := EncodeArtifact(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": {\n    \"e\": {},\n    \"l\": [],\n    \"\\u00e9\": \"\\u2603\\ud83d\\ude00\"\n  },\n  \"n\": null,\n  \"z\": [\n    1,\n    1e+16,\n    -0.0,\n    0.0001\n  ]\n}"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := EncodeArtifact(Array(Float(1.0 / zero()))); err == nil {
		t.Fatal("infinity encoded")
	}
}

// zero defeats constant folding of 1/0.
func zero() float64 { return 0 }
