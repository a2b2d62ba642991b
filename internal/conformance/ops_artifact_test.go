package conformance

import (
	"encoding/json"
	"testing"
)

// artOp runs one .tine op through the handler and returns the response
// line as the runner would read it.
func artOp(t *testing.T, op, in string) map[string]any {
	t.Helper()
	r := NewHandler().Handle(Request{ID: "a", Op: op, Input: BytesInput([]byte(in))})
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(line, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestArtifactParseOp(t *testing.T) {
	out := artOp(t, "artifact.parse", `{"run_id":"x","cache":{},"format_version":2}`)
	keys, _ := out["output"].(map[string]any)["top_level_keys"].([]any)
	if len(keys) != 3 || keys[0] != "cache" || keys[2] != "run_id" {
		t.Errorf("keys %v", keys)
	}
	out = artOp(t, "artifact.parse", `[1]`)
	if keys := out["output"].(map[string]any)["top_level_keys"].([]any); len(keys) != 0 {
		t.Errorf("array keys %v", keys)
	}
	if out := artOp(t, "artifact.parse", `{"a":1,"a":1}`); out["ok"] != false || out["reason"] != "artifact.duplicate-key" {
		t.Errorf("duplicate: %v", out)
	}
}

// TestIntegrityVerifyOpNulls checks the verdict's null fields and a stored
// digest of another JSON type passed through as it was.
func TestIntegrityVerifyOpNulls(t *testing.T) {
	out := artOp(t, "integrity.verify", `{"format_version":2,"metadata":{"integrity":{"algorithm":"sha256","digest":[1,2]}}}`)
	o := out["output"].(map[string]any)
	if o["ok"] != false || o["reason"] != "malformed digest" || o["actual"] != nil || o["algorithm"] != "sha256" {
		t.Errorf("verdict %v", o)
	}
	if e, _ := o["expected"].([]any); len(e) != 2 {
		t.Errorf("expected %v", o["expected"])
	}
	out = artOp(t, "integrity.verify", `{"format_version":"2"}`)
	o = out["output"].(map[string]any)
	if o["reason"] != "unsupported .tine format_version='2'; supported (1, 2)" || o["algorithm"] != nil || o["expected"] != nil {
		t.Errorf("verdict %v", o)
	}
	if out := artOp(t, "integrity.digest", `[]`); out["ok"] != false {
		t.Errorf("digest of an array: %v", out)
	}
}
