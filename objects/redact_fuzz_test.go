package objects

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzRedactBlob checks the byte scrubber on arbitrary input: it never
// panics, is a fixed point after one run, passes non-UTF-8 through
// untouched and keeps UTF-8 text UTF-8.
func FuzzRedactBlob(f *testing.F) {
	for _, s := range []string{
		"api_key=sk-proj-0123456789abcdef\n",
		"Authorization: Bearer sk-abcdefghijklmnop\n",
		"-----BEGIN PRIVATE KEY-----\nMIIBVQIBADAN\n-----END PRIVATE KEY-----\n",
		"-----BEGIN EC PRIVATE KEY-----\nunterminated",
		"\x00\x01\x02\xff\xfe",
		`{"password": "a\"b", "token": 12, "x": {"api_key": null}}`,
		`"{\"secret\":\"s\"}"`,
		"a=password=secret&token=[REDACTED]x",
		"password='unterminated\r\nnext: token=\\\"",
		"see eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.Sf1KSf1KSf1KSf1KSf1K now",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		out := RedactBlob(in)
		if !bytes.Equal(in, orig) {
			t.Fatal("RedactBlob modified its input")
		}
		if !utf8.Valid(in) {
			if !bytes.Equal(out, in) {
				t.Fatalf("non-UTF-8 input changed: %q -> %q", in, out)
			}
			return
		}
		if !utf8.Valid(out) {
			t.Fatalf("UTF-8 input became invalid: %q -> %q", in, out)
		}
		if again := RedactBlob(out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", in, out, again)
		}
	})
}

// FuzzRedactValue checks the value walk on arbitrary JSON: no panic, a
// fixed point after one run, and nothing counted the second time.
func FuzzRedactValue(f *testing.F) {
	for _, s := range []string{
		`{"api_key":"sk-live-0123456789","model":"demo"}`,
		`{"name":"Authorization","value":"Bearer sk-abcdef"}`,
		`{"token":42,"usage":{"input":10}}`,
		`[["authorization","x"],"token=abc","how to: x",{"name":"token","value":3}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := ParseJSON(in, ParseOptions{MaxIntDigits: 64})
		if err != nil {
			return
		}
		once, _ := RedactValue(v)
		twice, n := RedactValue(once)
		a, errA := CanonV3(once)
		b, errB := CanonV3(twice)
		if (errA == nil) != (errB == nil) || !bytes.Equal(a, b) || n != 0 {
			t.Fatalf("not idempotent on %s: %s -> %s (count %d)", in, a, b, n)
		}
	})
}
