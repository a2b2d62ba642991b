package httpserve_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"
)

// signRS256 signs header and claims as given (the header's alg is not
// looked at), so a test can send headers mint would not build.
func (k *oidcKeys) signRS256(t *testing.T, header, claims map[string]any) string {
	t.Helper()
	hb, _ := json.Marshal(header)
	cb, _ := json.Marshal(claims)
	signed := b64.EncodeToString(hb) + "." + b64.EncodeToString(cb)
	d := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k.rsa, crypto.SHA256, d[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + b64.EncodeToString(sig)
}

// TestOIDCRefusesLooseJSON checks tokens a JSON decoder's leniency let
// through: JWT names are case-sensitive (RFC 7515 §4, RFC 7519 §4), so
// "ISS" is not iss nor "Tenant" tenant; exp and nbf are JSON numbers
// (a NumericDate, RFC 7519 §2), not strings holding one; and a typ header
// must be absent or JWT/at+jwt (spec §3), not null. Each was accepted
// ("Roles" as the roles claim, granting admin).
func TestOIDCRefusesLooseJSON(t *testing.T) {
	keys := newOIDCKeys(t)
	ts := startOIDC(t, keys, jwksFile(t, keys), func() time.Time { return oidcNow })
	good := map[string]any{"alg": "RS256", "kid": "r1"}
	cases := map[string]func(h, c map[string]any){
		"ISS for iss":       func(h, c map[string]any) { c["ISS"] = c["iss"]; delete(c, "iss") },
		"Tenant for tenant": func(h, c map[string]any) { c["Tenant"] = c["tenant"]; delete(c, "tenant") },
		"Roles for roles":   func(h, c map[string]any) { c["Roles"] = []string{"admin"}; delete(c, "roles") },
		"ALG for alg":       func(h, c map[string]any) { h["ALG"] = h["alg"]; delete(h, "alg") },
		"exp a string":      func(h, c map[string]any) { c["exp"] = "9999999999" },
		"nbf a string":      func(h, c map[string]any) { c["nbf"] = "1" },
		"typ null":          func(h, c map[string]any) { h["typ"] = nil },
	}
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+keys.signRS256(t, good, goodClaims()), "", nil); status != 200 {
		t.Fatalf("the untouched token = %d, want 200", status)
	}
	for name, edit := range cases {
		h := map[string]any{"alg": "RS256", "kid": "r1"}
		c := goodClaims()
		edit(h, c)
		want := 401
		if name == "Roles for roles" {
			want = 403 // a token without roles: authenticated, allowed nothing
		}
		status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+keys.signRS256(t, h, c), "", nil)
		if status != want {
			t.Errorf("%s: = %d %s, want %d", name, status, body, want)
		}
	}
}
