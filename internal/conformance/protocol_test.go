package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestGenRecipes(t *testing.T) {
	term := ";"
	cases := []struct {
		gen  Gen
		want string
	}{
		{Gen{Kind: "nest", Open: "[", Close: "]", Inner: json.RawMessage(`"0"`), Depth: 3}, "[[[0]]]"},
		{Gen{Kind: "repeat", PrefixB64: "Ww==", UnitB64: "W10s", SuffixB64: "W11d", Count: 3}, "[[],[],[],[]]"},
		{Gen{Kind: "repeat", UnitB64: "YWI=", Count: 5}, "ababababab"},
		{Gen{Kind: "fill", Byte: 97, Count: 4}, "aaaa"},
		{Gen{Kind: "oids", ObjectType: "blob", Count: 2, Start: 255}, "blob:sha256:" + strings.Repeat("0", 62) + "ff\nblob:sha256:" + strings.Repeat("0", 61) + "100\n"},
		{Gen{Kind: "oids", ObjectType: "run", Count: 1, Terminator: &term}, "run:sha256:" + strings.Repeat("0", 64) + ";"},
		{Gen{Kind: "oids", ObjectType: "run", Count: 1, ObjectHash: "sha256"}, "run:sha256:" + strings.Repeat("0", 64) + "\n"},
		{Gen{Kind: "oids", ObjectType: "event", Count: 1, Start: 10, ObjectHash: "blake3"}, "event:blake3:" + strings.Repeat("0", 63) + "a\n"},
	}
	for _, c := range cases {
		got, err := c.gen.AssembleBytes()
		if err != nil {
			t.Errorf("%s: %v", c.gen.Kind, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s = %q, want %q", c.gen.Kind, got, c.want)
		}
		if n, _ := c.gen.Size(); n != int64(len(got)) {
			t.Errorf("%s: Size %d, assembled %d", c.gen.Kind, n, len(got))
		}
	}
	v, err := Gen{Kind: "nest-value", Inner: json.RawMessage(`{"$i":"0"}`), Depth: 2}.AssembleValue()
	if err != nil || string(v) != `[[{"$i":"0"}]]` {
		t.Errorf("nest-value array = %s, %v", v, err)
	}
	v, err = Gen{Kind: "nest-value", Container: "object", Key: "k", Inner: json.RawMessage(`null`), Depth: 2}.AssembleValue()
	if err != nil || string(v) != `{"k":{"k":null}}` {
		t.Errorf("nest-value object = %s, %v", v, err)
	}
	for _, bad := range []Gen{
		{Kind: "fill", Byte: 1, Count: MaxGenBytes + 1},
		{Kind: "repeat", UnitB64: "AAAA", Count: 1 << 62},
		{Kind: "fill", Byte: 256, Count: 1},
		{Kind: "repeat", UnitB64: "not base64!", Count: 1},
		{Kind: "spiral"},
		{Kind: "oids", ObjectType: "blob", Count: 1, ObjectHash: "sha1"},
	} {
		if _, err := bad.AssembleBytes(); !errors.Is(err, ErrGen) {
			t.Errorf("%+v: err %v, want ErrGen", bad, err)
		}
	}
}

func TestLineReader(t *testing.T) {
	in := "one\r\n" + strings.Repeat("x", 40) + "\ntwo\n" + strings.Repeat("y", 10) + "\nlast"
	lr := NewLineReader(strings.NewReader(in), 16)
	var got []string
	for {
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, ErrLineTooLong) {
			got = append(got, "<too long>")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"one", "<too long>", "two", strings.Repeat("y", 10), "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

func TestWireRoundTrip(t *testing.T) {
	req := Request{ID: "a", Op: "canon.v3", Input: BytesInput([]byte{0, 1, 0xff}), Args: json.RawMessage(`{"max_tokens":3}`)}
	line, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseRequest(line)
	if err != nil {
		t.Fatal(err)
	}
	if back.Input.Kind != InputBytes || !bytes.Equal(back.Input.Bytes, req.Input.Bytes) || string(back.Args) != `{"max_tokens":3}` {
		t.Errorf("round trip = %+v", back)
	}
	v, err := ParseRequest([]byte(`{"id":"b","op":"x","input":{"value":{"$i":"1"}}}`))
	if err != nil || v.Input.Kind != InputValue || string(v.Input.Value) != `{"$i":"1"}` {
		t.Errorf("value input = %+v, %v", v, err)
	}
	// Escapes, nesting and odd spacing anywhere in the line.
	w, err := ParseRequest([]byte(` { "i\u0064" : "q\"\\" , "op":"x", "input" : { "value" : {"a\"]}":["}",{"b":[]}]} } ,"args":{"k":"\\\""}} `))
	if err != nil || w.ID != `q"\` || string(w.Input.Value) != `{"a\"]}":["}",{"b":[]}]}` || string(w.Args) != `{"k":"\\\""}` {
		t.Errorf("escaped request = %+v, %v", w, err)
	}
	// An escaped slash is legal JSON for the same base64 text.
	e, err := ParseRequest([]byte(`{"id":"c","op":"x","input":{"bytes_b64":"\/w=="}}`))
	if err != nil || !bytes.Equal(e.Input.Bytes, []byte{0xff}) {
		t.Errorf("escaped base64 = %+v, %v", e, err)
	}
	for _, bad := range []string{
		`{"id":"d","op":"x","input":{"bytes_b64":"AA==\n"}}`,
		`{"id":"d","op":"x","input":{"bytes_b64":"AA"}}`,
		`{"id":"d","op":"x","input":{"bytes_b64":"AB=="}}`, // non-zero padding bits
		`{"id":"d","id":"e","op":"x","input":{"bytes_b64":"AA=="}}`,
		`{"id":"d","op":"x","input":{"bytes_b64":"AA=="}} {}`,
		`{"id":"d","op":"x","input":{"value":[1,}}}`,
		`{"id":"d","op":"x","input":{"value":"x"},"args":{"a":}}`,
		`{"id":"d","op":"x","input":{"value":"unterminated}}`,
		`{"id":"d","op":"x","input":{}}`,
		`{"id":"d","op":"x","input":{"bytes_b64":"AA==","value":1}}`,
		`not json`,
	} {
		if _, err := ParseRequest([]byte(bad)); err == nil {
			t.Errorf("ParseRequest(%s) accepted", bad)
		}
	}
	for resp, want := range map[*Response]string{
		{ID: "a", OK: true}: `{"id":"a","ok":true,"output":{}}`,
		{ID: "a", OK: true, Output: map[string]any{"links": []string{}}}: `{"id":"a","ok":true,"output":{"links":[]}}`,
		{ID: "a", Reason: "oid.malformed"}:                               `{"id":"a","ok":false,"reason":"oid.malformed"}`,
		{ID: "a", Unsupported: true}:                                     `{"id":"a","ok":false,"unsupported":true}`,
	} {
		got, err := EncodeResponse(*resp)
		if err != nil || string(got) != want+"\n" {
			t.Errorf("EncodeResponse = %s, %v; want %s", got, err, want)
		}
	}
}

func TestHandlerUnsupportedAndMalformed(t *testing.T) {
	h := NewHandler()
	if r := h.Handle(Request{ID: "u", Op: "no.such-op"}); !r.Unsupported || r.OK || r.ID != "u" {
		t.Errorf("unknown op = %+v", r)
	}
	// An op given the wrong input spelling refuses without a reason code.
	r := h.Handle(Request{ID: "w", Op: "text.validate", Input: ValueInput(json.RawMessage(`"x"`))})
	if r.OK || r.Reason != "" || r.Message == "" {
		t.Errorf("wrong spelling = %+v", r)
	}
	r = h.Handle(Request{ID: "m", Op: "shape.scan", Input: BytesInput([]byte("[]")), Args: json.RawMessage(`{"max_tokens":"many"}`)})
	if r.OK || r.Reason != "" {
		t.Errorf("malformed args = %+v", r)
	}
	issue2 := []string{"text.validate", "canon.v3", "canon.v2", "shape.scan", "envelope.decode", "envelope.encode",
		"oid.derive", "oid.parse", "links.extract", "annotation.chain", "event.metrics", "run.graph", "object.load",
		"object.path", "config.validate", "ref.name", "ref.file", "ref.target", "reflog.row", "shallow.parse", "shallow.encode"}
	for _, op := range issue2 {
		if !h.Supports(op) {
			t.Errorf("%s is not supported", op)
		}
	}
}
