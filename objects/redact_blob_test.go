package objects

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

// rdB64 decodes a vector's base64 text.
func rdB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rdBlob scrubs in and checks the result is a fixed point.
func rdBlob(t *testing.T, in string) string {
	t.Helper()
	out := RedactBlob([]byte(in))
	if again := RedactBlob(out); !bytes.Equal(again, out) {
		t.Fatalf("not idempotent on %q: %q then %q", in, out, again)
	}
	return string(out)
}

// TestRedactBlobVectors is the redact.blob half of 14-redaction.
func TestRedactBlobVectors(t *testing.T) {
	for _, c := range []struct{ id, in, want string }{
		{"assignment", "YXBpX2tleT1zay1wcm9qLTAxMjM0NTY3ODlhYmNkZWYK", "YXBpX2tleT1bUkVEQUNURURdCg=="},
		{"bearer-token", "QXV0aG9yaXphdGlvbjogQmVhcmVyIHNrLWFiY2RlZmdoaWprbG1ub3AK", "QXV0aG9yaXphdGlvbjogW1JFREFDVEVEXQo="},
		{"binary-passthrough", "AAEC//4=", "AAEC//4="},
		{"pem-private-key", "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUJWUUlCQURBTgotLS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg==", "W1JFREFDVEVEIFBSSVZBVEUgS0VZXQo="},
	} {
		got := rdBlob(t, string(rdB64(t, c.in)))
		if want := string(rdB64(t, c.want)); got != want {
			t.Errorf("%s: got %q, want %q", c.id, got, want)
		}
	}
}

func TestRedactBlobNonUTF8(t *testing.T) {
	in := []byte("api_key=sk-secret\xff\n")
	out := RedactBlob(in)
	if !bytes.Equal(out, in) || &out[0] != &in[0] {
		t.Errorf("non-UTF-8 blob changed or copied: %q", out)
	}
	// A WTF-8 surrogate is not UTF-8 either.
	if in := []byte("password=x \xed\xa0\x80"); !bytes.Equal(RedactBlob(in), in) {
		t.Error("WTF-8 blob was scrubbed")
	}
}

func TestRedactBlobAssignments(t *testing.T) {
	for in, want := range map[string]string{
		"a=password=secret\n":                              "a=password=[REDACTED]\n",
		`curl -H "Authorization: Bearer abc123" https://x`: `curl -H "Authorization: [REDACTED]" https://x`,
		"GET /cb?access_token=abc&state=1":                 "GET /cb?access_token=[REDACTED]&state=1",
		"export OPENAI_API_KEY=abcdef":                     "export OPENAI_API_KEY=[REDACTED]",
		"--client-secret=xyz --verbose":                    "--client-secret=[REDACTED] --verbose",
		"max_token=100 token=abc":                          "max_token=100 token=[REDACTED]",
		"token: 12.5\n":                                    "token: 12.5\n",
		"password: 'hunter two' user: ada":                 "password: '[REDACTED]' user: ada",
		"apiKey := \"k1\"":                                 "apiKey := \"[REDACTED]\"",
		"Proxy-Authorization: Basic dXNlcjpwYXNz\r\n":      "Proxy-Authorization: [REDACTED]\r\n",
		"Authorization: Bearer\n":                          "Authorization: [REDACTED]\n",
		"password=пароль next":                             "password=[REDACTED] next",
		"password:\n":                                      "password:\n",
		"password=\"unterminated secret\nnext":             "password=\"[REDACTED]\nnext",
		"Note: nothing secret here, ratio=3:1":             "Note: nothing secret here, ratio=3:1",
		"url=https://example.com/a?b=c":                    "url=https://example.com/a?b=c",
	} {
		if got := rdBlob(t, in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// TestRedactBlobJSONText checks JSON stays JSON: quoted values keep their
// quotes, unquoted ones gain them, containers and literals are left to
// their own keys.
func TestRedactBlobJSONText(t *testing.T) {
	in := `{"password": "hunter two", "pin_password": 1234, "api_key": null, "credentials": {"secret": "s3"}, "user": "ada", "esc": "{\"token\":\"t1\"}"}`
	want := `{"password": "[REDACTED]", "pin_password": "[REDACTED]", "api_key": null, "credentials": {"secret": "[REDACTED]"}, "user": "ada", "esc": "{\"token\":\"[REDACTED]\"}"}`
	got := rdBlob(t, in)
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := ParseJSON([]byte(got), ParseOptions{}); err != nil {
		t.Errorf("scrubbed JSON no longer parses: %v", err)
	}
}

func TestRedactBlobPEM(t *testing.T) {
	for in, want := range map[string]string{
		"a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb":    "a\n[REDACTED PRIVATE KEY]\nb",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n":                                   "[REDACTED PRIVATE KEY]",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\nx\n-----END PGP PRIVATE KEY BLOCK-----": "[REDACTED PRIVATE KEY]",
		"-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n":                  "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n",
	} {
		if got := rdBlob(t, in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestRedactBlobTokenShapes(t *testing.T) {
	// The shapes are assembled at run time so no scanner mistakes this
	// file for one holding live credentials.
	r := func(s string, n int) string { return strings.Repeat(s, n) }
	shapes := []string{
		"sk-" + "proj-" + r("a1B2", 6),
		"sk-" + "ant-api03-" + r("Zz9", 8),
		"gh" + "p_" + r("a1", 18),
		"github" + "_pat_" + r("11AB_", 9),
		"AK" + "IA" + r("Q7", 8),
		"xo" + "xb-" + "1234-5678-" + r("ab", 6),
		"gl" + "pat-" + r("x9", 10),
		"AI" + "za" + r("Sy1", 11) + "Aa",
		"sk" + "_live_" + r("4eC3", 5),
		"eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NSJ9" + "." + r("Sf1K", 6),
	}
	for _, s := range shapes {
		in := "see " + s + " here\n"
		if got := rdBlob(t, in); got != "see [REDACTED] here\n" {
			t.Errorf("shape %q: got %q", s, got)
		}
	}
	for _, in := range []string{
		"sk-learn-compatible-estimator-wrapper",
		"task-0123456789abcdefghijkl",
		"AKIA" + r("Q7", 8) + "XYZ",
		"an ordinary sentence with no secrets",
	} {
		if got := rdBlob(t, in); got != in {
			t.Errorf("%q was scrubbed to %q", in, got)
		}
	}
}

func TestRedactBlobKeepsUTF8(t *testing.T) {
	in := "pässwort: x\npassword=\"ü\\\"ö\" é token=ñ\n"
	out := RedactBlob([]byte(in))
	if !utf8.Valid(out) {
		t.Fatalf("result is not UTF-8: %q", out)
	}
	if want := "pässwort: x\npassword=\"[REDACTED]\" é token=[REDACTED]\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestRedactPutVectors is the object.put half of 14-redaction: redaction
// runs before the oid is derived.
func TestRedactPutVectors(t *testing.T) {
	for _, c := range []struct{ in, body, oid string }{
		{"QXV0aG9yaXphdGlvbjogQmVhcmVyIHNrLWFiY2RlZmdoaWprbG1ub3AK", "QXV0aG9yaXphdGlvbjogW1JFREFDVEVEXQo=",
			"blob:sha256:d59f30a53b0d5b806d70764184f315cbd415b7f09257420ffc8241a8740c1ad6"},
		{"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUJWUUlCQURBTgotLS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg==", "W1JFREFDVEVEIFBSSVZBVEUgS0VZXQo=",
			"blob:sha256:1c8743e48186ec334d930405eb1f9d4ccc70ab87a24db91e10880af3babd08f9"},
	} {
		o, err := RedactBlobObject(SHA256, 1, rdB64(t, c.in))
		if err != nil {
			t.Fatal(err)
		}
		if o.ID.String() != c.oid || !bytes.Equal(o.Body, rdB64(t, c.body)) {
			t.Errorf("blob put: got %s %q, want %s", o.ID, o.Body, c.oid)
		}
	}
	const body = `{"cost":0,"kind":"model","metadata":{"api_key":"[REDACTED]"},"parent_ids":[]}`
	const oid = "event:sha256:ad7a49dbd1d894f335314cfc5a47b948ea0dd72ba2a0f718f1bc1b19d81669e0"
	for _, in := range []string{
		`{"cost":0,"kind":"model","metadata":{"api_key":"sk-live-0123456789abcdefghij"},"parent_ids":[]}`,
		body, // already scrubbed: the same body and the same oid
	} {
		o, err := RedactObject(SHA256, TypeEvent, 1, rdParse(t, in))
		if err != nil {
			t.Fatal(err)
		}
		if o.ID.String() != oid || string(o.Body) != body {
			t.Errorf("event put: got %s %s", o.ID, o.Body)
		}
	}
	if _, err := RedactObject(SHA256, TypeBlob, 1, rdParse(t, `{}`)); !HasReason(err, ReasonEnvelopeEncodingMismatch) {
		t.Errorf("a blob from a JSON value: %v", err)
	}
}
