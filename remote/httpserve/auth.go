package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// Role is what an identity may do (spec §3): the static token has one,
// an OIDC token those its roles claim names.
type Role string

// The roles of spec §3.
const (
	RoleReader Role = "reader"
	RoleWriter Role = "writer"
	RoleAdmin  Role = "admin"
)

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == RoleReader || r == RoleWriter || r == RoleAdmin }

// MinTokenBytes is the shortest static token tine serve accepts.
const MinTokenBytes = 16

// Subject is the identity name of the static token (as in OpenTine's
// tine serve); upload ownership and reflog actors use it.
const Subject = "development"

// action is what a request needs its role to allow.
type action string

const (
	actReadRef   action = "read_ref"
	actNegotiate action = "negotiate"
	actFetch     action = "fetch"
	actSearch    action = "search"
	actUpload    action = "upload"
	actUpdateRef action = "update_ref"
	actPromote   action = "promote"
	actRetag     action = "retag"
	actAudit     action = "audit"
)

// identity is an authenticated caller: the static token's one role, or
// an OIDC token's roles.
type identity struct {
	subject string
	tenant  string
	roles   []Role
}

// has reports whether id holds role r.
func (id identity) has(r Role) bool {
	for _, x := range id.roles {
		if x == r {
			return true
		}
	}
	return false
}

// tokenAuth holds the SHA-256 digest of the static token, never the token.
type tokenAuth struct {
	digest [32]byte
	id     identity
}

func newTokenAuth(token []byte, tenant string, role Role) (*tokenAuth, error) {
	if len(token) < MinTokenBytes {
		return nil, fmt.Errorf("%w: the token has %d bytes, at least %d are needed", ErrWeakToken, len(token), MinTokenBytes)
	}
	return &tokenAuth{digest: sha256.Sum256(token), id: identity{subject: Subject, tenant: tenant, roles: []Role{role}}}, nil
}

// Reasons of a refused authentication, for the audit row; never sent to
// the caller, who always reads "authentication failed".
const (
	reasonNoToken  = "no bearer token"
	reasonBadToken = "unknown static token"
)

// bearer returns the request's bearer token: the "bearer " prefix in any
// case, whitespace around the token stripped; "" when there is none.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return ""
	}
	return strings.TrimSpace(h[7:])
}

// match compares tok's digest with the static token's in constant time.
func (a *tokenAuth) match(tok string) bool {
	d := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(d[:], a.digest[:]) == 1
}

// authenticate returns the caller's identity, or why none (spec §3): the
// static token first, then, when OIDC is configured, a JWT.
func (s *Server) authenticate(r *http.Request) (identity, string) {
	tok := bearer(r)
	if tok == "" {
		return identity{}, reasonNoToken
	}
	if s.auth.match(tok) {
		return s.auth.id, ""
	}
	if s.oidc == nil {
		return identity{}, reasonBadToken
	}
	return s.oidc.identify(r.Context(), tok)
}

// authMethods is the capabilities' authentication list: OIDC tokens travel
// as bearer tokens too, and are listed only when accepted.
func (s *Server) authMethods() []string {
	if s.oidc != nil {
		return []string{"bearer", "oidc"}
	}
	return []string{"bearer"}
}

// allows reports whether id may perform act on tenant: the tenants must
// match, then the role table of spec §3 decides; writerPromotes grants a
// writer the promote and retag extras.
func (id identity) allows(act action, tenant string, writerPromotes bool) bool {
	if id.tenant != tenant {
		return false
	}
	switch act {
	case actReadRef, actNegotiate, actFetch, actSearch:
		return id.has(RoleReader) || id.has(RoleWriter) || id.has(RoleAdmin)
	case actUpload, actUpdateRef:
		return id.has(RoleWriter) || id.has(RoleAdmin)
	case actPromote, actRetag:
		return id.has(RoleAdmin) || id.has(RoleWriter) && writerPromotes
	}
	return id.has(RoleAdmin)
}
