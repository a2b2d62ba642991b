package conformance

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseRequest feeds arbitrary lines to the request reader: it must
// never panic, and a request it accepts must survive a round trip through
// its own encoding.
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		`{"id":"a","op":"canon.v3","input":{"value":{"$i":"1"}},"args":{}}`,
		`{"id":"b","op":"oid.derive","input":{"bytes_b64":"aGVsbG8K"},"args":{"header":{"schema":1,"type":"blob"}}}`,
		`{"id":"c\"","op":"x","input":{"bytes_b64":"\/w=="}}`,
		`{"id":"d","input":{"value":[{"a":"]"}]}}`,
		`{`, `[]`, `{"id":}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := ParseRequest(line)
		if err != nil {
			return
		}
		again, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("accepted request does not encode: %v", err)
		}
		back, err := ParseRequest(again)
		if err != nil {
			t.Fatalf("re-encoded request %s does not parse: %v", again, err)
		}
		if back.ID != req.ID || back.Op != req.Op || back.Input.Kind != req.Input.Kind || !bytes.Equal(back.Input.Bytes, req.Input.Bytes) {
			t.Fatalf("round trip changed the request: %+v -> %+v", req, back)
		}
	})
}

// FuzzDecodeTagged checks the tagged-tree reader never panics and that any
// tree it accepts canonicalizes (v2, which takes every value) without a
// panic either.
func FuzzDecodeTagged(f *testing.F) {
	for _, seed := range []string{
		`{"$obj":[[{"$u":["d800"]},{"$i":"1"}],["a",{"$f":"-0.0"}]]}`,
		`[{"$f":"nan"},{"$u":["d83d","de00"]},{"$obj":{"$i":"x"}}]`,
		`{"$i":"-99999999999999999999999"}`, `{"$u":["dc00","d800"]}`,
	} {
		f.Add([]byte(seed))
	}
	h := NewHandler()
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := DecodeTagged(data); err != nil {
			return
		}
		h.Handle(Request{ID: "f", Op: "canon.v2", Input: ValueInput(data)})
		h.Handle(Request{ID: "f", Op: "canon.v3", Input: ValueInput(data)})
	})
}
