package httpserve

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tinehq/tine/remote/wire"
)

// Reasons an OIDC token is refused, for the audit row and the server log;
// the caller reads only "authentication failed". None quotes the token.
const (
	reasonTokenSize  = "oidc: token too large"
	reasonMalformed  = "oidc: malformed token"
	reasonAlg        = "oidc: algorithm not allowed"
	reasonTyp        = "oidc: typ not allowed"
	reasonUnknownKey = "oidc: unknown signing key"
	reasonKeysDown   = "oidc: key set unavailable"
	reasonSignature  = "oidc: bad signature"
	reasonIssuer     = "oidc: wrong issuer"
	reasonAudience   = "oidc: wrong audience"
	reasonAZP        = "oidc: authorized party not accepted"
	reasonExpired    = "oidc: expired"
	reasonNotYet     = "oidc: not yet valid"
	reasonClaims     = "oidc: bad subject, tenant or roles"
)

// errTrailingJSON reports data after a JWT part's JSON object.
var errTrailingJSON = errors.New("data after the JSON object")

// jwtHeader is the JOSE header fields the verifier reads.
type jwtHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Typ  json.RawMessage `json:"typ"`
	Crit json.RawMessage `json:"crit"`
}

// The names jwtHeader and jwtClaims read: strictJSON hands the decoder
// these members alone, matched exactly.
var (
	headerNames = []string{"alg", "kid", "typ", "crit"}
	claimNames  = []string{"iss", "sub", "aud", "azp", "exp", "nbf", "tenant", "roles"}
)

// jwtClaims is the claims the verifier reads; aud and roles take either
// of their two JSON shapes.
type jwtClaims struct {
	Iss    string          `json:"iss"`
	Sub    string          `json:"sub"`
	Aud    json.RawMessage `json:"aud"`
	Azp    *string         `json:"azp"`
	Exp    json.RawMessage `json:"exp"`
	Nbf    json.RawMessage `json:"nbf"`
	Tenant *string         `json:"tenant"`
	Roles  json.RawMessage `json:"roles"`
}

// identify verifies a compact JWS (RS256 or ES256 only: none, HS* and
// every other algorithm are refused before any key is looked at) and
// returns its identity: sub, the tenant claim and the roles claim.
func (v *oidcVerifier) identify(ctx context.Context, tok string) (identity, string) {
	if len(tok) > maxTokenBytes {
		return identity{}, reasonTokenSize
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return identity{}, reasonMalformed
	}
	hb, err1 := b64url(parts[0])
	cb, err2 := b64url(parts[1])
	sig, err3 := b64url(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return identity{}, reasonMalformed
	}
	var h jwtHeader
	if strictJSON(hb, &h, headerNames) != nil || h.Crit != nil {
		return identity{}, reasonMalformed
	}
	if h.Alg != "RS256" && h.Alg != "ES256" {
		return identity{}, reasonAlg
	}
	if h.Typ != nil {
		var typ string
		if jsonString(h.Typ, &typ) != nil || !strings.EqualFold(typ, "JWT") && !strings.EqualFold(typ, "at+jwt") {
			return identity{}, reasonTyp
		}
	}
	k, why := v.key(ctx, h.Kid, h.Alg)
	if why != "" {
		return identity{}, why
	}
	if !checkSig(k, []byte(parts[0]+"."+parts[1]), sig) {
		return identity{}, reasonSignature
	}
	var c jwtClaims
	if strictJSON(cb, &c, claimNames) != nil || !numberOrNull(c.Exp) || !numberOrNull(c.Nbf) {
		return identity{}, reasonMalformed
	}
	return v.claims(c)
}

// claims applies the claim rules of spec §3 to a token whose signature
// holds.
func (v *oidcVerifier) claims(c jwtClaims) (identity, string) {
	if c.Iss != v.cfg.Issuer {
		return identity{}, reasonIssuer
	}
	aud, ok := stringOrList(c.Aud)
	if !ok || !slices.ContainsFunc(aud, func(a string) bool { return slices.Contains(v.cfg.Audiences, a) }) {
		return identity{}, reasonAudience
	}
	switch {
	case c.Azp == nil && len(aud) > 1:
		return identity{}, reasonAZP
	case c.Azp != nil && !slices.Contains(v.cfg.Audiences, *c.Azp) && !slices.Contains(v.cfg.AuthorizedParties, *c.Azp):
		return identity{}, reasonAZP
	}
	now := v.now()
	exp, ok := numericDate(c.Exp)
	if !ok || now.After(exp.Add(oidcLeeway)) {
		return identity{}, reasonExpired
	}
	if !isNull(c.Nbf) {
		nbf, ok := numericDate(c.Nbf)
		if !ok || now.Before(nbf.Add(-oidcLeeway)) {
			return identity{}, reasonNotYet
		}
	}
	if c.Sub == "" || len(c.Sub) > 256 || c.Tenant == nil || wire.CheckTenant(*c.Tenant) != nil {
		return identity{}, reasonClaims
	}
	roles, ok := stringOrList(c.Roles)
	if !ok || len(roles) > 64 {
		return identity{}, reasonClaims
	}
	if len(roles) == 1 && string(c.Roles) != "null" && c.Roles[0] == '"' {
		roles = strings.Fields(roles[0])
	}
	id := identity{subject: "oidc:" + c.Sub, tenant: *c.Tenant}
	for _, r := range roles {
		if Role(r).Valid() {
			id.roles = append(id.roles, Role(r))
		}
	}
	return id, ""
}

// checkSig verifies sig over signed with k: PKCS #1 v1.5 SHA-256 for
// RS256, the 64-byte r||s form for ES256 (RFC 7518 §3.4).
func checkSig(k verifyKey, signed, sig []byte) bool {
	d := sha256.Sum256(signed)
	switch pub := k.pub.(type) {
	case *rsa.PublicKey:
		return k.alg == "RS256" && rsa.VerifyPKCS1v15(pub, crypto.SHA256, d[:], sig) == nil
	case *ecdsa.PublicKey:
		if k.alg != "ES256" || len(sig) != 64 {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(pub, d[:], r, s)
	}
	return false
}

// strictJSON decodes one JSON object into v, which reads the members
// names. Only members spelt exactly so reach v: JOSE and JWT names are
// case-sensitive (RFC 7515 §4, RFC 7519 §4), while encoding/json would
// take "ISS" or "Roles" for iss or roles.
func strictJSON(b []byte, v any, names []string) error {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return err
	}
	if dec.More() {
		return errTrailingJSON
	}
	exact := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if raw, ok := m[n]; ok {
			exact[n] = raw
		}
	}
	kept, err := json.Marshal(exact)
	if err != nil {
		return err
	}
	return json.Unmarshal(kept, v)
}

// stringOrList decodes a claim that is a string or a list of strings;
// absent or null is the empty list.
func stringOrList(raw json.RawMessage) ([]string, bool) {
	if isNull(raw) {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, true
	}
	var l []string
	if json.Unmarshal(raw, &l) == nil {
		return l, true
	}
	return nil, false
}

// numberOrNull reports whether raw is absent, null or a JSON number
// (json.Number alone would also take a string holding one).
func numberOrNull(raw json.RawMessage) bool {
	if isNull(raw) {
		return true
	}
	_, err := strconv.ParseFloat(string(raw), 64)
	return (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') && err == nil
}

// numericDate reads a NumericDate (seconds since the epoch, possibly
// fractional: a JSON number, never a string holding one); absent, null or
// a value outside any sane range is not one.
func numericDate(raw json.RawMessage) (time.Time, bool) {
	if isNull(raw) || !numberOrNull(raw) {
		return time.Time{}, false
	}
	f, err := json.Number(raw).Float64()
	if err != nil || math.IsNaN(f) || f < 0 || f > 1e11 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}
