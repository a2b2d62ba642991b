package httpserve_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tinehq/tine/remote/httpserve"
)

const (
	testIssuer   = "https://issuer.example"
	testAudience = "tine-remote"
)

var b64 = base64.RawURLEncoding

// oidcKeys are signing keys generated for the test and their key set.
type oidcKeys struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func newOIDCKeys(t *testing.T) *oidcKeys {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &oidcKeys{rsa: rk, ec: ek}
}

func rsaJWK(kid string, k *rsa.PublicKey) map[string]string {
	return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64.EncodeToString(k.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PublicKey) map[string]string {
	raw, _ := k.Bytes()
	return map[string]string{"kty": "EC", "kid": kid, "crv": "P-256",
		"x": b64.EncodeToString(raw[1:33]), "y": b64.EncodeToString(raw[33:])}
}

func (k *oidcKeys) jwks() []byte {
	b, _ := json.Marshal(map[string]any{"keys": []any{rsaJWK("r1", &k.rsa.PublicKey), ecJWK("e1", &k.ec.PublicKey)}})
	return b
}

// mint signs claims with header (alg decides the key: RS256, ES256, or
// HS256 keyed with the RSA public modulus, the classic confusion).
func (k *oidcKeys) mint(t *testing.T, header, claims map[string]any) string {
	t.Helper()
	hb, _ := json.Marshal(header)
	cb, _ := json.Marshal(claims)
	signed := b64.EncodeToString(hb) + "." + b64.EncodeToString(cb)
	d := sha256.Sum256([]byte(signed))
	var sig []byte
	switch header["alg"] {
	case "RS256":
		s, err := rsa.SignPKCS1v15(rand.Reader, k.rsa, crypto.SHA256, d[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = s
	case "ES256":
		r, s, err := ecdsa.Sign(rand.Reader, k.ec, d[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	case "HS256":
		m := hmac.New(sha256.New, k.rsa.N.Bytes())
		m.Write([]byte(signed))
		sig = m.Sum(nil)
	}
	return signed + "." + b64.EncodeToString(sig)
}

var oidcNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func goodClaims() map[string]any {
	return map[string]any{"iss": testIssuer, "aud": testAudience, "sub": "ci-job-7",
		"exp": oidcNow.Add(5 * time.Minute).Unix(), "tenant": "acme", "roles": []string{"reader"}}
}

func startOIDC(t *testing.T, keys *oidcKeys, jwks string, now func() time.Time, log ...func(string)) *testServer {
	t.Helper()
	var logf func(string)
	if len(log) > 0 {
		logf = log[0]
	}
	return startServer(t, httpserve.Config{Now: now, Log: logf, OIDC: &httpserve.OIDCConfig{
		Issuer: testIssuer, Audiences: []string{testAudience}, AuthorizedParties: []string{"ci-client"}, JWKS: jwks}})
}

func jwksFile(t *testing.T, keys *oidcKeys) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(p, keys.jwks(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOIDCAccepted(t *testing.T) {
	keys := newOIDCKeys(t)
	ts := startOIDC(t, keys, jwksFile(t, keys), func() time.Time { return oidcNow })
	_, caps, _ := ts.raw(t, "GET", "/v1/capabilities", "-", "", nil)
	if !strings.HasPrefix(caps, `{"authentication":["bearer","oidc"],`) {
		t.Errorf("capabilities = %s", caps)
	}
	type check struct {
		name   string
		header map[string]any
		edit   func(map[string]any)
		method string
		path   string
		want   int
	}
	rs := map[string]any{"alg": "RS256", "kid": "r1"}
	checks := []check{
		{"RS256 reader reads", rs, nil, "GET", "/v1/tenants/acme/refs", 200},
		{"ES256 reader reads", map[string]any{"alg": "ES256", "kid": "e1", "typ": "JWT"}, nil, "GET", "/v1/tenants/acme/refs", 200},
		{"no kid, one key of the alg", map[string]any{"alg": "ES256"}, nil, "GET", "/v1/tenants/acme/refs", 200},
		{"typ at+jwt", map[string]any{"alg": "RS256", "kid": "r1", "typ": "at+jwt"}, nil, "GET", "/v1/tenants/acme/refs", 200},
		{"reader may not audit", rs, nil, "GET", "/v1/tenants/acme/audit/verify", 403},
		{"space-separated roles", rs, func(c map[string]any) { c["roles"] = "writer admin" }, "GET", "/v1/tenants/acme/audit/verify", 200},
		{"roles list", rs, func(c map[string]any) { c["roles"] = []string{"admin"} }, "GET", "/v1/tenants/acme/audit/verify", 200},
		{"no roles claim: no roles", rs, func(c map[string]any) { delete(c, "roles") }, "GET", "/v1/tenants/acme/refs", 403},
		{"unknown role ignored", rs, func(c map[string]any) { c["roles"] = "owner" }, "GET", "/v1/tenants/acme/refs", 403},
		{"tenant claim is the identity's tenant", rs, nil, "GET", "/v1/tenants/other/refs", 403},
		{"aud list with azp", rs, func(c map[string]any) { c["aud"] = []string{"x", testAudience}; c["azp"] = testAudience }, "GET", "/v1/tenants/acme/refs", 200},
		{"azp an authorized party", rs, func(c map[string]any) { c["azp"] = "ci-client" }, "GET", "/v1/tenants/acme/refs", 200},
		{"exp within leeway", rs, func(c map[string]any) { c["exp"] = oidcNow.Add(-50 * time.Second).Unix() }, "GET", "/v1/tenants/acme/refs", 200},
		{"nbf within leeway", rs, func(c map[string]any) { c["nbf"] = oidcNow.Add(50 * time.Second).Unix() }, "GET", "/v1/tenants/acme/refs", 200},
	}
	for _, c := range checks {
		claims := goodClaims()
		if c.edit != nil {
			c.edit(claims)
		}
		tok := keys.mint(t, c.header, claims)
		if status, body, _ := ts.raw(t, c.method, c.path, "Bearer "+tok, "", nil); status != c.want {
			t.Errorf("%s: %s %s = %d %s, want %d", c.name, c.method, c.path, status, body, c.want)
		}
	}
	// The static token still works beside OIDC.
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil); status != 200 {
		t.Errorf("static token = %d", status)
	}
	rows := auditRows(t, ts.root)
	if rows[0]["actor"] != "oidc:ci-job-7" {
		t.Errorf("audit actor = %v, want oidc:ci-job-7", rows[0]["actor"])
	}
}

func TestOIDCRefused(t *testing.T) {
	keys := newOIDCKeys(t)
	var mu sync.Mutex
	var last string
	ts := startOIDC(t, keys, jwksFile(t, keys), func() time.Time { return oidcNow }, func(line string) {
		mu.Lock()
		last = line
		mu.Unlock()
	})
	rs := map[string]any{"alg": "RS256", "kid": "r1"}
	good := keys.mint(t, rs, goodClaims())
	parts := strings.Split(good, ".")
	other := newOIDCKeys(t)
	tokens := map[string]string{
		"alg none":           b64.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".",
		"HS256 with the key": keys.mint(t, map[string]any{"alg": "HS256", "kid": "r1"}, goodClaims()),
		"RS384":              keys.mint(t, map[string]any{"alg": "RS384", "kid": "r1"}, goodClaims()),
		"unknown kid":        keys.mint(t, map[string]any{"alg": "RS256", "kid": "r9"}, goodClaims()),
		"kid of another alg": keys.mint(t, map[string]any{"alg": "RS256", "kid": "e1"}, goodClaims()),
		"another key":        other.mint(t, rs, goodClaims()),
		"signature altered":  parts[0] + "." + parts[1] + "." + flip(parts[2]),
		"claims altered":     parts[0] + "." + b64.EncodeToString([]byte(strings.Replace(mustB64(t, parts[1]), "reader", "admin!", 1))) + "." + parts[2],
		"padded base64":      parts[0] + "=." + parts[1] + "." + parts[2],
		"std base64":         parts[0] + "." + parts[1] + "." + strings.NewReplacer("-", "+", "_", "/").Replace(parts[2]) + "+",
		"two parts":          parts[0] + "." + parts[1],
		"four parts":         good + ".x",
		"oversized":          good + strings.Repeat("A", 8200),
		"typ JOSE":           keys.mint(t, map[string]any{"alg": "RS256", "kid": "r1", "typ": "JOSE"}, goodClaims()),
		"crit header":        keys.mint(t, map[string]any{"alg": "RS256", "kid": "r1", "crit": []string{"exp"}}, goodClaims()),
		"garbage":            "not-a-jwt-at-all-but-long",
	}
	claimCases := map[string]func(map[string]any){
		"wrong issuer":              func(c map[string]any) { c["iss"] = "https://evil.example" },
		"no issuer":                 func(c map[string]any) { delete(c, "iss") },
		"wrong audience":            func(c map[string]any) { c["aud"] = "someone-else" },
		"no audience":               func(c map[string]any) { delete(c, "aud") },
		"expired":                   func(c map[string]any) { c["exp"] = oidcNow.Add(-61 * time.Second).Unix() },
		"no exp":                    func(c map[string]any) { delete(c, "exp") },
		"exp a string":              func(c map[string]any) { c["exp"] = "tomorrow" },
		"not yet valid":             func(c map[string]any) { c["nbf"] = oidcNow.Add(2 * time.Minute).Unix() },
		"several audiences, no azp": func(c map[string]any) { c["aud"] = []string{testAudience, "x"} },
		"azp not accepted":          func(c map[string]any) { c["azp"] = "stranger" },
		"bad tenant claim":          func(c map[string]any) { c["tenant"] = "Acme!" },
		"no tenant claim":           func(c map[string]any) { delete(c, "tenant") },
		"no subject":                func(c map[string]any) { delete(c, "sub") },
		"roles a number":            func(c map[string]any) { c["roles"] = 7 },
	}
	for name, edit := range claimCases {
		c := goodClaims()
		edit(c)
		tokens[name] = keys.mint(t, rs, c)
	}
	// Each is refused for its own reason (the server's log says which;
	// the caller learns nothing).
	why := map[string]string{
		"alg none": "algorithm", "HS256 with the key": "algorithm", "RS384": "algorithm",
		"unknown kid": "unknown signing key", "kid of another alg": "unknown signing key",
		"another key": "bad signature", "signature altered": "bad signature", "claims altered": "bad signature",
		"padded base64": "malformed", "std base64": "malformed", "two parts": "malformed", "four parts": "malformed",
		"oversized": "too large", "typ JOSE": "typ", "crit header": "malformed", "garbage": "malformed",
		"wrong issuer": "issuer", "no issuer": "issuer", "wrong audience": "audience", "no audience": "audience",
		"expired": "expired", "no exp": "expired", "exp a string": "malformed", "not yet valid": "not yet valid",
		"several audiences, no azp": "authorized party", "azp not accepted": "authorized party",
		"bad tenant claim": "tenant", "no tenant claim": "tenant", "no subject": "subject", "roles a number": "roles",
	}
	for name, tok := range tokens {
		status, body, h := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+tok, "", nil)
		if status != 401 || body != `{"error":"authentication failed"}` || h.Get("WWW-Authenticate") != "" {
			t.Errorf("%s: = %d %s, want 401 authentication failed", name, status, body)
		}
		mu.Lock()
		line := last
		mu.Unlock()
		if !strings.Contains(line, "oidc: ") || !strings.Contains(line, why[name]) || why[name] == "" {
			t.Errorf("%s: refused as %q, want %q", name, line, why[name])
		}
	}
}

func flip(s string) string {
	b := []byte(s)
	if b[5] == 'A' {
		b[5] = 'B'
	} else {
		b[5] = 'A'
	}
	return string(b)
}

func mustB64(t *testing.T, s string) string {
	b, err := b64.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOIDCKeySetURL: keys fetched over HTTP when first needed; a token
// naming a new kid refetches at most once a minute.
func TestOIDCKeySetURL(t *testing.T) {
	keys := newOIDCKeys(t)
	var fetches atomic.Int32
	var mu sync.Mutex
	set := keys.jwks()
	js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		mu.Lock()
		defer mu.Unlock()
		w.Write(set)
	}))
	defer js.Close()
	var clock atomic.Int64
	clock.Store(oidcNow.UnixNano())
	ts := startOIDC(t, keys, js.URL+"/jwks", func() time.Time { return time.Unix(0, clock.Load()) })
	if fetches.Load() != 0 {
		t.Errorf("key set fetched before any token")
	}
	ok := keys.mint(t, map[string]any{"alg": "RS256", "kid": "r1"}, goodClaims())
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+ok, "", nil); status != 200 {
		t.Fatalf("token = %d", status)
	}
	rotated := newOIDCKeys(t)
	tok2 := rotated.mint(t, map[string]any{"alg": "RS256", "kid": "r2"}, goodClaims())
	for i := 0; i < 3; i++ {
		if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+tok2, "", nil); status != 401 {
			t.Errorf("unknown kid = %d, want 401", status)
		}
	}
	mu.Lock()
	set, _ = json.Marshal(map[string]any{"keys": []any{rsaJWK("r1", &keys.rsa.PublicKey), rsaJWK("r2", &rotated.rsa.PublicKey)}})
	mu.Unlock()
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+tok2, "", nil); status != 401 {
		t.Errorf("new kid within a minute of the last fetch = %d, want 401", status)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
	clock.Add(int64(61 * time.Second))
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+tok2, "", nil); status != 200 {
		t.Errorf("new kid after a minute = %d, want 200", status)
	}
	if n := fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

func TestOIDCConfigRefused(t *testing.T) {
	keys := newOIDCKeys(t)
	for name, oc := range map[string]httpserve.OIDCConfig{
		"no issuer":        {Audiences: []string{"a"}, JWKS: jwksFile(t, keys)},
		"no audience":      {Issuer: testIssuer, JWKS: jwksFile(t, keys)},
		"plain http URL":   {Issuer: testIssuer, Audiences: []string{"a"}, JWKS: "http://keys.example/jwks"},
		"missing file":     {Issuer: testIssuer, Audiences: []string{"a"}, JWKS: filepath.Join(t.TempDir(), "none")},
		"not a key set":    {Issuer: testIssuer, Audiences: []string{"a"}, JWKS: writeTemp(t, `{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`)},
		"short RSA":        {Issuer: testIssuer, Audiences: []string{"a"}, JWKS: writeTemp(t, `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`)},
		"EC off the curve": {Issuer: testIssuer, Audiences: []string{"a"}, JWKS: writeTemp(t, `{"keys":[{"kty":"EC","crv":"P-256","x":"`+b64.EncodeToString(make([]byte, 32))+`","y":"`+b64.EncodeToString(make([]byte, 32))+`"}]}`)},
	} {
		_, err := httpserve.New(httpserve.Config{Root: t.TempDir(), Tenant: "acme", Token: []byte(testToken), Role: httpserve.RoleReader, OIDC: &oc})
		if err == nil {
			t.Errorf("%s: New accepted the OIDC configuration", name)
		}
	}
}

func writeTemp(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
