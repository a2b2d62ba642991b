package objects

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Canonical schema-1 headers used throughout the tests.
const (
	hBlob  = `{"encoding":"raw","schema":1,"type":"blob"}`
	hEvent = `{"encoding":"json","schema":1,"type":"event"}`
	hRun   = `{"encoding":"json","schema":1,"type":"run"}`
	hAtt   = `{"encoding":"json","schema":1,"type":"attestation"}`
	hAnn   = `{"encoding":"json","schema":1,"type":"annotation"}`
)

// env frames a header and a body the way SPEC §1.2 stores them.
func env(header, body string) []byte { return []byte(header + "\n" + body) }

// wantReason fails t unless err carries one of the comma-separated reasons.
func wantReason(t *testing.T, err error, reasons string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want reject with %s", reasons)
	}
	got, ok := ReasonOf(err)
	if !ok {
		t.Fatalf("error %v carries no reason; want %s", err, reasons)
	}
	for _, r := range strings.Split(reasons, ",") {
		if string(got) == r {
			return
		}
	}
	t.Fatalf("reason %s (%v); want %s", got, err, reasons)
}

// envelopeCases transcribes the envelope.decode vectors of 12-envelope,
// 00-text, 02-canon-v3 and 99-repair, plus edge cases of this package.
var envelopeCases = []struct {
	name   string
	stored []byte
	oid    string // accepted with this sha256 oid, when reason is ""
	reason string // comma-separated acceptable reasons
}{
	{"env.blob.arbitrary-bytes", env(hBlob, "a\nb\x00c\xff"), "blob:sha256:d31114dc6dfacde97f3109d9fc902d07b87dbde1509f62b62b6077fe6c16ed9e", ""},
	{"env.body.empty-object", env(hEvent, `{}`), "event:sha256:050b676006c12f36aca255649bd3bf3d6ffa2dcfb0652bc9fdef0b06aaaea1b0", ""},
	{"env.body.malformed-json", env(hEvent, `{"a":`), "", "envelope.body-malformed-json"},
	{"env.body.non-ascii-literal", env(hEvent, "{\"note\":\"\xc3\xa9\xe2\x98\x83\"}"), "event:sha256:4dcde2e75224c8a65d152c655b41bee177ad503009bd666d2108623271026a82", ""},
	{"env.body.non-canonical-order", env(hEvent, `{"b":1,"a":2}`), "", "envelope.body-non-canonical"},
	{"env.encoding.blob-says-json", env(`{"encoding":"json","schema":1,"type":"blob"}`, "hello\n"), "", "envelope.encoding-mismatch"},
	{"env.header.canonical", env(hBlob, "hello\n"), "blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008", ""},
	{"env.header.extra-key", env(`{"encoding":"raw","extra":1,"schema":1,"type":"blob"}`, "hello\n"), "", "envelope.header-key-count"},
	{"env.header.maximal-66-bytes", env(`{"encoding":"json","schema":9007199254740991,"type":"attestation"}`, `{}`), "attestation:sha256:983c7635b8c31e143dc52eb4e29bc66233cef8b04318abf67640eafdb60183b1", ""},
	{"env.header.missing-key", env(`{"schema":1,"type":"blob"}`, "hello\n"), "", "envelope.header-key-count"},
	{"env.header.no-lf", []byte(hBlob), "", "envelope.malformed"},
	{"env.header.not-json", env("not a header", "hello\n"), "", "envelope.malformed"},
	{"env.header.oversized", env(`{"encoding":"raw","pad":"`+strings.Repeat("y", 240)+`","schema":1,"type":"blob"}`, "hello\n"), "", "envelope.malformed"},
	{"env.header.reordered", env(`{"schema":1,"encoding":"raw","type":"blob"}`, "hello\n"), "", "envelope.header-non-canonical"},
	{"env.header.whitespace-padded", env(`{"encoding": "raw", "schema": 1, "type": "blob"}`, "hello\n"), "", "envelope.header-non-canonical"},
	{"env.schema.at-2-53", env(`{"encoding":"raw","schema":9007199254740992,"type":"blob"}`, "hello\n"), "", "canon.integer-overflow,envelope.schema-not-integer,envelope.schema-out-of-range"},
	{"env.schema.boolean-true", env(`{"encoding":"raw","schema":true,"type":"blob"}`, "hello\n"), "", "envelope.schema-not-integer"},
	{"env.schema.float-one-point-zero", env(`{"encoding":"raw","schema":1.0,"type":"blob"}`, "hello\n"), "", "envelope.header-non-canonical"},
	{"env.schema.negative", env(`{"encoding":"raw","schema":-1,"type":"blob"}`, "hello\n"), "", "envelope.schema-out-of-range"},
	{"env.schema.seven-accepts", env(`{"encoding":"json","schema":7,"type":"event"}`, `{"cost":0,"kind":"model","parent_ids":[]}`), "event:sha256:f2ed23e588e7aa75b114a780c95b0cf83e218d6749267dbcaf6fbb86b4e302f8", ""},
	{"env.schema.string", env(`{"encoding":"raw","schema":"1","type":"blob"}`, "hello\n"), "", "envelope.schema-not-integer"},
	{"env.schema.zero", env(`{"encoding":"raw","schema":0,"type":"blob"}`, "hello\n"), "", "envelope.schema-out-of-range"},
	{"env.type.unknown-widget", env(`{"encoding":"json","schema":1,"type":"widget"}`, `{}`), "", "envelope.unknown-type"},
	{"text.blob.cesu8-json-body-refused", env(hEvent, "{\"k\":\"\xed\xa0\x80\"}"), "", "canon.unencodable-text"},
	{"text.blob.cesu8-stores-unchanged", env(hBlob, "\xed\xa0\x80"), "blob:sha256:d486bc72e4d8e9b6d0cba1b6de0e42924f8edb8381b6f5224c9973c32e02a297", ""},
	{"text.blob.raw-invalid-utf8", env(hBlob, "\xff\xfe\x00\n"), "blob:sha256:ae66d9c576553ec3526093d5c011e68bba3bf078f39f79e458f6090417f34fb7", ""},
	{"canon.v3.demotion.fixpoint", env(hEvent, `{"n":100000000000000000000}`), "event:sha256:865af97c2988897db62a64bdbc43b0e1655750fb0cb32982dd230007cd9bbf0c", ""},
	{"oid.decode.expected-oid-matches", env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`), "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7", ""},

	// Edge cases beyond the vectors.
	{"empty input", nil, "", "envelope.malformed"},
	{"empty blob body", env(hBlob, ""), "blob:sha256:f128706786d3c82721361a84fd00ac242f8a165ef34d7ae4a2e565c4d7f2d2b3", ""},
	{"lf only", []byte("\n"), "", "envelope.malformed"},
	{"header over 256 without lf", []byte(strings.Repeat("x", 300)), "", "envelope.malformed"},
	{"header of 256 bytes is parsed", env(`{"encoding":"raw","pad":"`+strings.Repeat("y", 256-len(`{"encoding":"raw","pad":"","schema":1,"type":"blob"}`))+`","schema":1,"type":"blob"}`, ""), "", "envelope.header-key-count"},
	{"header is an array", env(`["encoding","schema","type"]`, ""), "", "envelope.header-non-canonical"},
	{"header duplicate key", env(`{"encoding":"raw","encoding":"raw","schema":1,"type":"blob"}`, ""), "", "envelope.header-non-canonical"},
	{"three keys, one misnamed", env(`{"encoding":"raw","schema":1,"typo":"blob"}`, ""), "", "envelope.header-key-count"},
	{"schema leading zero", env(`{"encoding":"raw","schema":01,"type":"blob"}`, ""), "", "envelope.malformed"},
	{"schema fraction", env(`{"encoding":"raw","schema":1.5,"type":"blob"}`, ""), "", "envelope.schema-not-integer"},
	{"schema null", env(`{"encoding":"raw","schema":null,"type":"blob"}`, ""), "", "envelope.schema-not-integer"},
	{"schema 2^70", env(`{"encoding":"raw","schema":1180591620717411303424,"type":"blob"}`, ""), "", "envelope.schema-out-of-range"},
	{"type not a string", env(`{"encoding":"raw","schema":1,"type":7}`, ""), "", "envelope.unknown-type"},
	{"event says raw", env(`{"encoding":"raw","schema":1,"type":"event"}`, `{}`), "", "envelope.encoding-mismatch"},
	{"encoding not a string", env(`{"encoding":null,"schema":1,"type":"run"}`, `{}`), "", "envelope.encoding-mismatch"},
	{"lf inside a json body is not canonical", env(hEvent, "{}\n"), "", "envelope.body-non-canonical"},
	{"json body duplicate key", env(hEvent, `{"a":1,"a":1}`), "", "envelope.body-non-canonical"},
	{"json body escaped lone surrogate", env(hEvent, `{"k":"\ud800"}`), "", "text.lone-surrogate"},
	{"json body escaped surrogate pair", env(hEvent, `{"k":"\ud83d\ude00"}`), "", "envelope.body-non-canonical"},
	{"json body invalid utf-8", env(hEvent, "{\"k\":\"\xff\"}"), "", "envelope.body-malformed-json"},
	{"json body NaN", env(hEvent, `{"k":NaN}`), "", "canon.non-finite,envelope.body-malformed-json"},
	{"json body float overflow", env(hEvent, `{"k":1e400}`), "", "canon.non-finite"},
	{"json body empty", env(hEvent, ""), "", "envelope.body-malformed-json"},
	{"json body trailing garbage", env(hEvent, `{}x`), "", "envelope.body-malformed-json"},
	{"json body too deep", env(hEvent, strings.Repeat("[", 513)+strings.Repeat("]", 513)), "", "shape.depth-exceeded"},
	{"json body at depth 512", env(hEvent, strings.Repeat("[", 512)+strings.Repeat("]", 512)), "", ""},
	{"json body non-object accepted by the envelope", env(hRun, `[1,"x",null]`), "", ""},
}

func TestDecodeEnvelopeCases(t *testing.T) {
	for _, c := range envelopeCases {
		t.Run(c.name, func(t *testing.T) {
			o, err := DecodeEnvelope(SHA256, c.stored)
			if c.reason != "" {
				wantReason(t, err, c.reason)
				if o != nil {
					t.Fatalf("rejected decode returned an object")
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if c.oid != "" && o.ID.String() != c.oid {
				t.Fatalf("oid %s, want %s", o.ID, c.oid)
			}
			if !bytes.Equal(o.Stored(), c.stored) {
				t.Fatalf("Stored() = %q, want the input back", o.Stored())
			}
			want := string(o.Type)
			if _, err := ParseOID(o.ID.String()); err != nil || !strings.HasPrefix(o.ID.String(), want+":") {
				t.Fatalf("derived oid %s is not a %s oid", o.ID, want)
			}
		})
	}
}

func TestDecodeEnvelopeFields(t *testing.T) {
	o, err := DecodeEnvelope(SHA256, env(`{"encoding":"json","schema":7,"type":"event"}`, `{"cost":0,"kind":"model","parent_ids":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Type != TypeEvent || o.Schema != 7 || o.Encoding() != "json" {
		t.Fatalf("got type %s schema %d encoding %s", o.Type, o.Schema, o.Encoding())
	}
	if kind, _ := o.Value.Get("kind"); kind.Str != "model" {
		t.Fatalf("Value not parsed: %+v", o.Value)
	}
	b, err := DecodeEnvelope(SHA256, env(hBlob, "hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Encoding() != "raw" || string(b.Body) != "hello\n" || b.Value.Kind != KindNull {
		t.Fatalf("blob decoded as %q %q %v", b.Encoding(), b.Body, b.Value.Kind)
	}
}

func TestDecodeEnvelopeDemotesBigIntegers(t *testing.T) {
	o, err := DecodeEnvelope(SHA256, env(hEvent, `{"n":100000000000000000000}`))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := o.Value.Get("n")
	if n.Kind != KindFloat || n.Float != 1e20 {
		t.Fatalf("n = %+v, want the float 1e20", n)
	}
}

func TestDecodeEnvelopeBodyTokenBound(t *testing.T) {
	gen := func(count int) []byte {
		return env(hEvent, "["+strings.Repeat("[],", count)+"[]]")
	}
	// 16-bounds: 66665 units stay within 200000 structural tokens, 66666 do not.
	if _, err := DecodeEnvelope(SHA256, gen(66665)); err != nil {
		t.Fatalf("under the bound: %v", err)
	}
	_, err := DecodeEnvelope(SHA256, gen(66666))
	wantReason(t, err, "shape.tokens-exceeded")
}

func TestDecodeEnvelopeAs(t *testing.T) {
	stored := env(hBlob, "hello\n")
	good, _ := ParseOID("blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008")
	if o, err := DecodeEnvelopeAs(good, stored); err != nil || o.ID != good {
		t.Fatalf("matching oid: %v", err)
	}
	bad, _ := ParseOID("blob:sha256:" + strings.Repeat("3", 64))
	_, err := DecodeEnvelopeAs(bad, stored)
	wantReason(t, err, "envelope.oid-mismatch")
	if !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("error %q does not name the object", err)
	}
	// The same bytes under a blake3 name hash with blake3.
	b3 := BLAKE3.Derive(TypeBlob, 1, []byte("hello\n"))
	if o, err := DecodeEnvelopeAs(b3, stored); err != nil || o.ID != b3 {
		t.Fatalf("blake3 name: %v", err)
	}
	wrongAlgo := good
	wrongAlgo.Algo = BLAKE3
	_, err = DecodeEnvelopeAs(wrongAlgo, stored)
	wantReason(t, err, "envelope.oid-mismatch")
	// A decode failure names the object it was fetched as.
	_, err = DecodeEnvelopeAs(good, env(hBlob, "")[1:])
	wantReason(t, err, "envelope.malformed")
	if !strings.Contains(err.Error(), good.String()) {
		t.Fatalf("error %q does not name the object", err)
	}
	if _, err := DecodeEnvelopeAs(OID{}, stored); err == nil {
		t.Fatalf("zero expected oid accepted")
	}
}

func TestDecodeEnvelopeUnknownAlgo(t *testing.T) {
	if _, err := DecodeEnvelope(Algo("md5"), env(hBlob, "")); err == nil {
		t.Fatal("unknown algo accepted")
	}
}

func TestBlake3RoundTrip(t *testing.T) {
	o, err := NewJSONObject(BLAKE3, TypeEvent, 1, mustParse(t, `{"kind":"model","cost":0,"parent_ids":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.ID.Algo != BLAKE3 || o.ID != BLAKE3.Derive(TypeEvent, 1, o.Body) {
		t.Fatalf("id %s is not the blake3 derivation", o.ID)
	}
	back, err := DecodeEnvelopeAs(o.ID, o.Stored())
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != o.ID || !bytes.Equal(back.Body, o.Body) {
		t.Fatalf("round trip changed the object")
	}
	// The sha256 view of the same bytes is a different name.
	s, err := DecodeEnvelope(SHA256, o.Stored())
	if err != nil || s.ID.String() != "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7" {
		t.Fatalf("sha256 decode: %v %s", err, s.ID)
	}
}

// TestFastHeaderMatchesSlowPath checks that the fast path accepts exactly
// the headers the full parser accepts, with the same fields.
func TestFastHeaderMatchesSlowPath(t *testing.T) {
	headers := []string{hBlob, hEvent, hRun, hAtt, hAnn,
		`{"encoding":"json","schema":9007199254740991,"type":"attestation"}`,
		`{"encoding":"json","schema":9007199254740992,"type":"run"}`,
		`{"encoding":"json","schema":0,"type":"run"}`,
		`{"encoding":"json","schema":00,"type":"run"}`,
		`{"encoding":"json","schema":10,"type":"run"}`,
		`{"encoding":"json","schema":12345678901234567,"type":"run"}`,
		`{"encoding":"raw","schema":1,"type":"event"}`,
		`{"encoding":"json","schema":1,"type":"blob"}`,
		`{"encoding":"json","schema":1,"type":"Run"}`,
		`{"encoding":"json","schema":1,"type":"run"} `,
		`{"encoding":"json","schema":1,"type":"run"`,
		`{"encoding":"json","schema":-1,"type":"run"}`,
		`{"encoding":"json","schema":1e0,"type":"run"}`,
		`{"encoding":"json","schema":1,"type":"}`, // found by FuzzDecodeEnvelope
		`{"encoding":"json","schema":1,"type":""}`,
	}
	for _, h := range headers {
		ft, fs, fok := CanonicalHeader([]byte(h))
		st, ss, err := decodeHeader([]byte(h))
		if fok != (err == nil) {
			t.Errorf("%s: fast ok=%v, slow err=%v", h, fok, err)
			continue
		}
		if fok && (ft != st || fs != ss) {
			t.Errorf("%s: fast %s/%d, slow %s/%d", h, ft, fs, st, ss)
		}
	}
}

func TestAppendHeader(t *testing.T) {
	for _, typ := range Types {
		h := AppendHeader(nil, typ, 1)
		if _, _, err := decodeHeader(h); err != nil {
			t.Errorf("%s header %s: %v", typ, h, err)
		}
	}
	if got := string(AppendHeader([]byte("x"), TypeAttestation, MaxSchema)); got != `x{"encoding":"json","schema":9007199254740991,"type":"attestation"}` {
		t.Fatalf("got %s", got)
	}
}

// TestEncodeVectors transcribes the envelope.encode vectors of 12-envelope.
func TestEncodeVectors(t *testing.T) {
	blob := NewBlob(SHA256, []byte("hello\n"))
	if got := base64.StdEncoding.EncodeToString(blob.Stored()); got != "eyJlbmNvZGluZyI6InJhdyIsInNjaGVtYSI6MSwidHlwZSI6ImJsb2IifQpoZWxsbwo=" {
		t.Errorf("blob bytes %s", got)
	}
	if blob.ID.String() != "blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008" {
		t.Errorf("blob oid %s", blob.ID)
	}
	ev, err := NewJSONObject(SHA256, TypeEvent, 1, mustParse(t, `{"parent_ids":[],"kind":"model","cost":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := base64.StdEncoding.EncodeToString(ev.Stored()); got != "eyJlbmNvZGluZyI6Impzb24iLCJzY2hlbWEiOjEsInR5cGUiOiJldmVudCJ9CnsiY29zdCI6MCwia2luZCI6Im1vZGVsIiwicGFyZW50X2lkcyI6W119" {
		t.Errorf("event bytes %s", got)
	}
	if ev.ID.String() != "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7" {
		t.Errorf("event oid %s", ev.ID)
	}
	if e := NewBlob(SHA256, nil); e.ID.String() != "blob:sha256:f128706786d3c82721361a84fd00ac242f8a165ef34d7ae4a2e565c4d7f2d2b3" || e.Body == nil {
		t.Errorf("empty blob %s", e.ID)
	}
}

// mustParse parses JSON text into a Value for building test payloads.
func mustParse(t testing.TB, s string) Value {
	t.Helper()
	v, err := ParseJSON([]byte(s), ParseOptions{})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// benchEvent is a ~1 KiB event body of the shape writers produce.
func benchEvent(b *testing.B) []byte {
	b.Helper()
	o, err := NewJSONObject(SHA256, TypeEvent, 1, mustParse(b, `{"attributes":{"http.status":200,"retries":0,"route":"/v1/messages"},"cost":"0.0123","duration":1.734,"input_blob":"`+vHello+`","kind":"model","model":"claude-sonnet-4","output_blob":"`+vHello+`","parent_ids":["`+vE1+`","`+vE2+`"],"provider":"anthropic","span_id":"5b8aa5a2d2c872e8","time_unix":1764493200.125,"trace_id":"0af7651916cd43dd8448eb211c80319c","usage":{"cache_read":2048,"cache_write_1h":0,"cache_write_5m":512,"input":1834,"output":421,"reasoning":0,"total":4815},"note":"`+strings.Repeat("lorem ipsum ", 30)+`"}`))
	if err != nil {
		b.Fatal(err)
	}
	return o.Stored()
}

func BenchmarkDecodeEnvelope(b *testing.B) {
	stored := benchEvent(b)
	for _, a := range []Algo{SHA256, BLAKE3} {
		b.Run(string(a), func(b *testing.B) {
			b.SetBytes(int64(len(stored)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeEnvelope(a, stored); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidateEvent(b *testing.B) {
	stored := benchEvent(b)
	o, err := DecodeEnvelope(SHA256, stored)
	if err != nil {
		b.Fatal(err)
	}
	repo := newTestRepo(b, SHA256, []string{vHello, vE1, vE2}, nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Validate(o, repo); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDeriveIDMatchesDerive checks the pooled derivation against Algo.Derive,
// including reuse of a pooled state after a longer input.
func TestDeriveIDMatchesDerive(t *testing.T) {
	bodies := [][]byte{[]byte(strings.Repeat("z", 5000)), nil, []byte("hello\n"), []byte("{}")}
	for _, a := range []Algo{SHA256, BLAKE3} {
		for _, typ := range Types {
			for _, body := range bodies {
				for _, schema := range []int64{1, 7, MaxSchema} {
					if got, want := deriveID(a, typ, schema, body), a.Derive(typ, schema, body); got != want {
						t.Fatalf("%s %s %d %q: %s, want %s", a, typ, schema, body, got, want)
					}
				}
			}
		}
	}
}

// TestDecodeEnvelopeConcurrent exercises the pooled hashers and body buffers
// from many goroutines (run with -race).
func TestDecodeEnvelopeConcurrent(t *testing.T) {
	stored := env(hEvent, `{"cost":0,"kind":"model","parent_ids":[]}`)
	want := map[Algo]OID{SHA256: SHA256.Derive(TypeEvent, 1, stored[len(hEvent)+1:]), BLAKE3: BLAKE3.Derive(TypeEvent, 1, stored[len(hEvent)+1:])}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		a := []Algo{SHA256, BLAKE3}[g%2]
		wg.Go(func() {
			for range 200 {
				o, err := DecodeEnvelope(a, stored)
				if err != nil {
					errs <- err
					return
				}
				if o.ID != want[a] {
					errs <- fmt.Errorf("%s: got %s", a, o.ID)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
