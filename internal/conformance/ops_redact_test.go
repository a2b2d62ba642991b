package conformance

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/tinehq/tine/objects"
)

// rdPut runs object.put through the handler.
func rdPut(in Input, args string) Response {
	return NewHandler().Handle(Request{ID: "p", Op: "object.put", Input: in, Args: json.RawMessage(args)})
}

func TestObjectPutPayloadBytes(t *testing.T) {
	// A json type given as bytes is parsed, then redacted like a value.
	r := rdPut(BytesInput([]byte(`{"kind":"model","parent_ids":[],"cost":0,"metadata":{"apiKey":"k"}}`)), `{"type":"event"}`)
	if !r.OK {
		t.Fatalf("refused: %s", r.Message)
	}
	body, _ := base64.StdEncoding.DecodeString(r.Output["body_b64"].(string))
	if want := `{"cost":0,"kind":"model","metadata":{"apiKey":"[REDACTED]"},"parent_ids":[]}`; string(body) != want {
		t.Errorf("body %s, want %s", body, want)
	}
	o, err := objects.NewObjectFromBody(objects.SHA256, objects.TypeEvent, 1, body)
	if err != nil || r.Output["oid"] != o.ID.String() {
		t.Errorf("oid %v does not name the body (%v)", r.Output["oid"], err)
	}
}

func TestObjectPutArgs(t *testing.T) {
	// Bytes without a type are a blob; a value needs one.
	if r := rdPut(BytesInput([]byte("password=x\n")), `{}`); !r.OK {
		t.Errorf("untyped bytes refused: %s", r.Message)
	} else if body, _ := base64.StdEncoding.DecodeString(r.Output["body_b64"].(string)); string(body) != "password=[REDACTED]\n" {
		t.Errorf("blob body %q", body)
	}
	if r := rdPut(ValueInput(json.RawMessage(`{}`)), `{}`); r.OK || r.Reason != "" {
		t.Errorf("untyped value: ok=%v reason=%q", r.OK, r.Reason)
	}
	if r := rdPut(ValueInput(json.RawMessage(`{}`)), `{"type":"blob"}`); r.Reason != string(objects.ReasonEnvelopeEncodingMismatch) {
		t.Errorf("value as blob: reason %q", r.Reason)
	}
	if r := rdPut(BytesInput([]byte("x")), `{"schema":0}`); r.Reason != string(objects.ReasonEnvelopeSchemaOutOfRange) {
		t.Errorf("schema 0: reason %q", r.Reason)
	}
}

// TestObjectPutChecksStore: given the store's objects, a put whose links
// do not resolve there is refused.
func TestObjectPutChecksStore(t *testing.T) {
	parent := "event:sha256:" + "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"
	in := ValueInput(json.RawMessage(`{"cost":{"$i":"0"},"kind":"model","parent_ids":["` + parent + `"]}`))
	if r := rdPut(in, `{"type":"event"}`); !r.OK {
		t.Fatalf("without a store the put is accepted: %s", r.Message)
	}
	r := rdPut(in, `{"type":"event","objects":[]}`)
	if r.OK || r.Reason != string(objects.ReasonLinkMissingObject) {
		t.Errorf("dangling parent in an empty store: ok=%v reason=%q %s", r.OK, r.Reason, r.Message)
	}
}
