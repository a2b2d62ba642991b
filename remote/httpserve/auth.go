package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// Role is what the server's one static identity may do (spec §3).
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
)

// identity is an authenticated caller.
type identity struct {
	subject string
	tenant  string
	role    Role
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
	return &tokenAuth{digest: sha256.Sum256(token), id: identity{subject: Subject, tenant: tenant, role: role}}, nil
}

// authenticate checks the bearer token: the "bearer " prefix in any case,
// whitespace around the token stripped, and the digests compared in
// constant time.
func (a *tokenAuth) authenticate(r *http.Request) (identity, bool) {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return identity{}, false
	}
	tok := strings.TrimSpace(h[7:])
	if tok == "" {
		return identity{}, false
	}
	d := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(d[:], a.digest[:]) != 1 {
		return identity{}, false
	}
	return a.id, true
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
		return true
	case actUpload, actUpdateRef:
		return id.role == RoleWriter || id.role == RoleAdmin
	case actPromote, actRetag:
		return id.role == RoleAdmin || id.role == RoleWriter && writerPromotes
	}
	return id.role == RoleAdmin
}
