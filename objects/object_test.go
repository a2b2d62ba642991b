package objects

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestNewJSONObjectRejects(t *testing.T) {
	lone := String("a\xed\xa0\x80")
	cases := []struct {
		name   string
		algo   Algo
		typ    Type
		schema int64
		v      Value
		want   string
	}{
		{"lone surrogate value", SHA256, TypeEvent, 1, payloadOf("k", lone), "text.lone-surrogate"},
		{"lone surrogate key", SHA256, TypeEvent, 1, payloadOf("\xed\xbf\xbf", Null()), "text.lone-surrogate"},
		{"lone surrogate deep in an array", BLAKE3, TypeRun, 1, payloadOf("k", Array(Int(1), Array(lone))), "text.lone-surrogate"},
		{"blob is raw", SHA256, TypeBlob, 1, payloadOf(), "envelope.encoding-mismatch"},
		{"unknown type", SHA256, Type("widget"), 1, payloadOf(), "envelope.unknown-type"},
		{"schema zero", SHA256, TypeEvent, 0, payloadOf(), "envelope.schema-out-of-range"},
		{"schema 2^53", SHA256, TypeEvent, MaxSchema + 1, payloadOf(), "envelope.schema-out-of-range"},
		{"unsafe integer", SHA256, TypeEvent, 1, payloadOf("n", Int(MaxSchema+1)), "canon.integer-overflow"},
		{"non-finite float", SHA256, TypeEvent, 1, payloadOf("n", Float(math.Inf(1))), "canon.non-finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := NewJSONObject(c.algo, c.typ, c.schema, c.v)
			wantReason(t, err, c.want)
			if o != nil {
				t.Fatal("rejected constructor returned an object")
			}
		})
	}
	if _, err := NewJSONObject(Algo("sha1"), TypeEvent, 1, payloadOf()); !errors.Is(err, ErrUnknownAlgo) {
		t.Fatalf("unknown algo: %v", err)
	}
}

// TestNewJSONObjectValueIsWhatReadersSee: the returned Value is the parse of
// the canonical body, so an integral float becomes the integer every reader
// will decode and a big float keeps its float kind.
func TestNewJSONObjectValueIsWhatReadersSee(t *testing.T) {
	o, err := NewJSONObject(SHA256, TypeEvent, 1, payloadOf("b", Float(5), "a", Float(1e20)))
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Body) != `{"a":100000000000000000000,"b":5}` {
		t.Fatalf("body %s", o.Body)
	}
	b, _ := o.Value.Get("b")
	a, _ := o.Value.Get("a")
	if b.Kind != KindInt || b.Int != 5 || a.Kind != KindFloat || a.Float != 1e20 {
		t.Fatalf("value %+v", o.Value)
	}
	back, err := DecodeEnvelopeAs(o.ID, o.Stored())
	if err != nil || !sameJSON(back.Value, o.Value) {
		t.Fatalf("decode of the stored object differs: %v", err)
	}
}

func TestNewObjectFromBody(t *testing.T) {
	_, err := NewObjectFromBody(SHA256, TypeEvent, 1, []byte(`{"b":1,"a":2}`))
	wantReason(t, err, "envelope.body-non-canonical")
	_, err = NewObjectFromBody(SHA256, TypeEvent, 1, nil)
	wantReason(t, err, "envelope.body-malformed-json")
	_, err = NewObjectFromBody(SHA256, TypeEvent, 1, []byte(`{"k":"\ud800"}`))
	wantReason(t, err, "text.lone-surrogate")

	// A blob body is opaque; a schema other than 1 is a different object.
	b2, err := NewObjectFromBody(SHA256, TypeBlob, 2, []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b2.ID.String() != "blob:sha256:7fcae5de5de6e407d4aef7c39fd39002d6aa936cfb4804152ee8fe10f1bdf8b6" {
		t.Fatalf("schema-2 blob oid %s", b2.ID)
	}
	if got := string(b2.Stored()); got != `{"encoding":"raw","schema":2,"type":"blob"}`+"\nhello\n" {
		t.Fatalf("stored %q", got)
	}
	ann, err := NewObjectFromBody(SHA256, TypeAnnotation, 1, []byte(`{}`))
	if err != nil || ann.ID.String() != "annotation:sha256:de2015c2c6cba07c7d999d92410905c6814a9d6a6d8c8ba5166d1319efc5d12d" {
		t.Fatalf("annotation oid %v %v", ann, err)
	}
}

func TestAppendStored(t *testing.T) {
	a := NewBlob(SHA256, []byte("x"))
	b := NewBlob(BLAKE3, []byte("y\n"))
	buf := b.AppendStored(a.AppendStored([]byte("P")))
	want := "P" + hBlob + "\nx" + hBlob + "\ny\n"
	if string(buf) != want {
		t.Fatalf("got %q", buf)
	}
	if !bytes.Equal(a.Stored(), []byte(hBlob+"\nx")) {
		t.Fatalf("Stored %q", a.Stored())
	}
}
