package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestSuiteKeysMatchKeysJSON holds the embedded suite keys to the copied
// keys.json, so a changed suite cannot silently run against stale keys.
func TestSuiteKeysMatchKeysJSON(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(suiteDir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	var published map[string]string
	if err := json.Unmarshal(b, &published); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(published, suiteKeys) {
		t.Fatalf("keys.json %v differs from the embedded suite keys %v", published, suiteKeys)
	}
}

func sigOp(op, input, args string) Response {
	return NewHandler().Handle(Request{ID: "s", Op: op, Input: ValueInput(json.RawMessage(input)), Args: json.RawMessage(args)})
}

const sigDoc = `{"claim":{"result":"pass"},"evidence_ids":[],"signer":"release-bot","target_id":"run:sha256:1111111111111111111111111111111111111111111111111111111111111111"}`

func TestSigMessageOp(t *testing.T) {
	in := `{"document":` + sigDoc + `,"header":{"alg":"hmac-sha256","key_id":"demo-key","scheme":"tine-attest/1","signed_at":"2026-09-05T00:00:00Z","signer":"release-bot"}}`
	r := sigOp("sig.message", in, `{"key":"hmac_a","scheme":"tine-attest/1"}`)
	if !r.OK || r.Output["value"] != "6b9ea7e75bff9987920f417ba0419c12f6aadfe3088ec8ee8ce7eda271177164" {
		t.Fatalf("worked vector: %+v", r)
	}
	if r := sigOp("sig.message", in, `{"scheme":"tine-attest/1"}`); !r.OK || r.Output["value"] != nil {
		t.Errorf("value given without a key: %+v", r.Output)
	}
	for name, c := range map[string][2]string{
		"unknown key":     {in, `{"key":"nope","scheme":"tine-attest/1"}`},
		"no document":     {`{"header":{}}`, `{"scheme":"tine-attest/1"}`},
		"header not text": {`{"document":{},"header":{"key_id":{"$i":"7"}}}`, `{"scheme":"tine-attest/1"}`},
		"short key":       {in, `{"key":"hmac_short","scheme":"tine-attest/1"}`},
	} {
		if r := sigOp("sig.message", c[0], c[1]); r.OK || r.Reason != "" {
			t.Errorf("%s: ok=%v reason=%q, want a refusal without a format reason", name, r.OK, r.Reason)
		}
	}
}

func TestSigVerifyOpVerdicts(t *testing.T) {
	// A verdict is an accepted answer: unsigned is ok:true at the protocol
	// level with the verdict's own ok false.
	r := sigOp("sig.verify", sigDoc, `{"family":"attestation","key":"hmac_a"}`)
	if !r.OK || r.Output["state"] != objects.StateUnsigned || r.Output["ok"] != false || r.Output["algorithm"] != nil {
		t.Fatalf("unsigned: %+v", r)
	}
	// A .tine file given as bytes goes through the artifact reader first.
	b := NewHandler().Handle(Request{ID: "b", Op: "sig.verify", Input: BytesInput([]byte(`{"a":1,"a":2}`)), Args: json.RawMessage(`{"family":"artifact"}`)})
	if b.OK || b.Reason != string(objects.ReasonArtifactDuplicateKey) {
		t.Errorf("artifact bytes with a duplicate key: %+v", b)
	}
}

func TestAttestSignOp(t *testing.T) {
	in := `{"claim":{"result":"pass"},"signer":"release-bot","target_id":"run:sha256:` + strings.Repeat("2", 64) + `"}`
	r := sigOp("attest.sign", in, `{"key":"ed25519_seed","algorithm":"ed25519","key_id":"k1","signed_at":"2026-01-01T00:00:00Z"}`)
	if !r.OK {
		t.Fatalf("ed25519 attest.sign refused: %s", r.Message)
	}
	sig, _ := r.Output["signature"].(map[string]any)
	if sig["alg"] != "ed25519" || sig["key_id"] != "k1" || sig["public_key"] == nil || len(sig["value"].(string)) != 128 {
		t.Errorf("block %v", sig)
	}
	// Told the store holds nothing, the missing target run is refused.
	if r := sigOp("attest.sign", in, `{"key":"hmac_a","objects":[]}`); r.OK || r.Reason != string(objects.ReasonLinkMissingObject) {
		t.Errorf("dangling target: ok=%v reason=%q", r.OK, r.Reason)
	}
	if r := sigOp("attest.sign", `{"target_id":"x"}`, `{"key":"hmac_a"}`); r.OK {
		t.Errorf("payload without a signer was signed")
	}
	if r := sigOp("attest.sign", in, `{"key":"hmac_short"}`); r.OK {
		t.Errorf("a 15-byte key signed")
	}
}
