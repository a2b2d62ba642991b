package objects

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// rdParse parses JSON test text into a Value.
func rdParse(t testing.TB, text string) Value {
	t.Helper()
	v, err := ParseJSON([]byte(text), ParseOptions{})
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return v
}

// rdCanon returns the v3 canonical text of v.
func rdCanon(t testing.TB, v Value) string {
	t.Helper()
	b, err := CanonV3(v)
	if err != nil {
		t.Fatalf("canon: %v", err)
	}
	return string(b)
}

// rdRedact redacts the JSON text in and returns the canonical result and
// the count, checking idempotence and that the input was not modified.
func rdRedact(t *testing.T, in string) (string, int) {
	t.Helper()
	v := rdParse(t, in)
	before := rdCanon(t, v)
	out, n := RedactValue(v)
	if after := rdCanon(t, v); after != before {
		t.Fatalf("RedactValue modified its input: %s -> %s", before, after)
	}
	again, n2 := RedactValue(out)
	if got, want := rdCanon(t, again), rdCanon(t, out); got != want || n2 != 0 {
		t.Fatalf("not idempotent on %s: %s then %s (second count %d)", in, want, got, n2)
	}
	return rdCanon(t, out), n
}

// TestRedactValueVectors is the redact.value half of 14-redaction.
func TestRedactValueVectors(t *testing.T) {
	for _, c := range []struct{ id, in, want string }{
		{"credential-field", `{"api_key":"sk-live-0123456789","model":"demo"}`, `{"api_key":"[REDACTED]","model":"demo"}`},
		{"header-name-value-pair", `{"name":"Authorization","value":"Bearer sk-abcdef"}`, `{"name":"Authorization","value":"[REDACTED]"}`},
		{"nested", `{"outer":{"inner":{"password":"hunter2","user":"ada"}}}`, `{"outer":{"inner":{"password":"[REDACTED]","user":"ada"}}}`},
		{"numeric-token-counter-survives", `{"token":42,"usage":{"input":10}}`, `{"token":42,"usage":{"input":10}}`},
	} {
		if got, _ := rdRedact(t, c.in); got != c.want {
			t.Errorf("%s: got %s, want %s", c.id, got, c.want)
		}
	}
}

func TestRedactEveryCredentialName(t *testing.T) {
	for name := range credentialNames {
		for _, key := range []string{name, name + "s", strings.ToUpper(name)} {
			got, n := rdRedact(t, `{"`+key+`":"v","zz":"v"}`)
			if want := `{"` + key + `":"[REDACTED]","zz":"v"}`; got != want || n != 1 {
				t.Errorf("key %q: got %s (count %d), want %s", key, got, n, want)
			}
		}
	}
}

func TestRedactEverySuffix(t *testing.T) {
	for _, suf := range append(secretSuffixes, "_token") {
		for _, key := range []string{"my" + suf, "my" + compact(suf), "MY" + strings.ToUpper(suf)} {
			got, _ := rdRedact(t, `{"`+key+`":"v"}`)
			if want := `{"` + key + `":"[REDACTED]"}`; got != want {
				t.Errorf("key %q: got %s, want %s", key, got, want)
			}
		}
	}
}

func TestNormalizeKeyName(t *testing.T) {
	for in, want := range map[string]string{
		"apiKey":               "api_key",
		"clientSecret":         "client_secret",
		"X-Amz-Security-Token": "x_amz_security_token",
		"XAmzSecurityToken":    "x_amz_security_token",
		"APIKey":               "api_key",
		"oauth2Token":          "oauth2_token",
		` "Password" `:         "password",
		"'api-key'":            "api_key",
		"OPENAI_API_KEY":       "openai_api_key",
		"":                     "",
	} {
		if got := NormalizeKeyName(in); got != want {
			t.Errorf("NormalizeKeyName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactKeyClassification(t *testing.T) {
	secrets := []string{"apiKey", "clientSecret", "X-Amz-Security-Token", "openaiApiKey", "OPENAIAPIKEY",
		"Proxy-Authorization", "Set-Cookie", "cookies", "db_dsn", "slackWebhookUrl", "csrftoken", "token"}
	plain := []string{"model", "name", "value", "input_tokens", "tokens", "max_tokens", "keyboard",
		"monkey", "password_hash", "secretary", "tokenizer", "author", "key", "id"}
	for _, k := range secrets {
		if classifyName(k) == notSecret {
			t.Errorf("%q should be a secret name", k)
		}
	}
	for _, k := range plain {
		if classifyName(k) != notSecret {
			t.Errorf("%q should not be a secret name", k)
		}
	}
}

func TestRedactTokenNumberExemption(t *testing.T) {
	for in, want := range map[string]string{
		`{"token":42}`:            `{"token":42}`,
		`{"token":4.5}`:           `{"token":4.5}`,
		`{"token":"abc"}`:         `{"token":"[REDACTED]"}`,
		`{"token":null}`:          `{"token":"[REDACTED]"}`,
		`{"csrf_token":7}`:        `{"csrf_token":7}`,
		`{"session_token":7}`:     `{"session_token":"[REDACTED]"}`,
		`{"input_tokens":"many"}`: `{"input_tokens":"many"}`,
		`{"password":1234}`:       `{"password":"[REDACTED]"}`,
		`{"usage":{"output_tokens":3,"input_tokens":5}}`: `{"usage":{"input_tokens":5,"output_tokens":3}}`,
	} {
		if got, _ := rdRedact(t, in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestRedactPairsAndLists(t *testing.T) {
	for in, want := range map[string]string{
		`{"name":"token","value":"abc"}`:                    `{"name":"token","value":"[REDACTED]"}`,
		`{"name":"token","value":5}`:                        `{"name":"token","value":5}`,
		`{"name":"X-Api-Key","value":{"a":1}}`:              `{"name":"X-Api-Key","value":"[REDACTED]"}`,
		`{"name":"Content-Type","value":"json"}`:            `{"name":"Content-Type","value":"json"}`,
		`[["authorization","Bearer x"],["accept","*/*"]]`:   `[["authorization","[REDACTED]"],["accept","*/*"]]`,
		`["Cookie",["a","b"]]`:                              `["Cookie","[REDACTED]"]`,
		`["authorization","Bearer x","third"]`:              `["authorization","Bearer x","third"]`,
		`{"headers":[{"name":"Set-Cookie","value":"s=1"}]}`: `{"headers":[{"name":"Set-Cookie","value":"[REDACTED]"}]}`,
		`{"creds":{"apiKey":{"deep":["x"]}}}`:               `{"creds":{"apiKey":"[REDACTED]"}}`,
		`[{"password":"a"},{"password":"b"}]`:               `[{"password":"[REDACTED]"},{"password":"[REDACTED]"}]`,
	} {
		if got, _ := rdRedact(t, in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestRedactLabelledStrings(t *testing.T) {
	for in, want := range map[string]string{
		"api_key=sk-1":                         "api_key: [REDACTED]",
		"Authorization: Bearer x":              "Authorization: [REDACTED]",
		" password = hunter2 ":                 "password: [REDACTED]",
		"token: abc":                           "token: [REDACTED]",
		"token: 42":                            "token: 42",
		"how to set the api_key: see the docs": "how to set the api_key: see the docs",
		"Password:":                            "Password:",
		"url: https://example.com":             "url: https://example.com",
		"no separator at all":                  "no separator at all",
		"=password":                            "=password",
	} {
		got, _ := rdRedact(t, `[`+rdCanon(t, String(in))+`]`)
		if w := `[` + rdCanon(t, String(want)) + `]`; got != w {
			t.Errorf("%q: got %s, want %s", in, got, w)
		}
	}
}

func TestRedactValueCount(t *testing.T) {
	_, n := rdRedact(t, `{"a":{"password":"x","api_key":"[REDACTED]"},"b":["token=abc"],"c":["cookie",{"x":1}]}`)
	if n != 3 {
		t.Errorf("count %d, want 3 (the marker already there is not counted)", n)
	}
}

func TestRedactValueDepthBound(t *testing.T) {
	secretAt := func(depth int) Value {
		v := ObjectValue(Member{Key: "password", Value: String("x")})
		for range depth {
			v = Array(v)
		}
		return v
	}
	if _, n := RedactValue(secretAt(MaxRedactDepth - 1)); n != 1 {
		t.Errorf("a secret inside %d containers was not redacted", MaxRedactDepth)
	}
	deep := secretAt(MaxRedactDepth + 5)
	out, n := RedactValue(deep)
	if n != 0 || !reflect.DeepEqual(out, deep) {
		t.Errorf("below MaxRedactDepth the value should be left alone (count %d)", n)
	}
	if _, err := CanonV3(out); err == nil {
		t.Error("the unredacted deep value must not canonicalise")
	}
}

// rdGen builds random values whose keys and strings favour the redaction
// rules' edge cases.
type rdGen struct{ r *rand.Rand }

var rdWords = []string{"token", "apiKey", "password", "name", "value", "authorization", "input_tokens",
	"X-Api-Key", "model", "[REDACTED]", "api_key=sk-1", "token: 7", "how to: x", "Bearer x", "cookie", ""}

func (g rdGen) value(depth int) Value {
	switch n := g.r.IntN(8); {
	case depth > 4 || n < 2:
		return String(rdWords[g.r.IntN(len(rdWords))])
	case n == 2:
		return Int(g.r.Int64N(100))
	case n == 3:
		return Null()
	case n == 4:
		elems := make([]Value, g.r.IntN(4))
		for i := range elems {
			elems[i] = g.value(depth + 1)
		}
		return Array(elems...)
	default:
		var ms []Member
		seen := map[string]bool{}
		for range g.r.IntN(4) {
			k := rdWords[g.r.IntN(len(rdWords))]
			if !seen[k] {
				seen[k] = true
				ms = append(ms, Member{Key: k, Value: g.value(depth + 1)})
			}
		}
		return ObjectValue(ms...)
	}
}

func TestRedactValueIdempotentProperty(t *testing.T) {
	g := rdGen{rand.New(rand.NewPCG(1, 2))}
	for range 3000 {
		v := g.value(0)
		once, _ := RedactValue(v)
		twice, n := RedactValue(once)
		if a, b := rdCanon(t, once), rdCanon(t, twice); a != b || n != 0 {
			t.Fatalf("not idempotent: %s -> %s -> %s (count %d)", rdCanon(t, v), a, b, n)
		}
	}
}
