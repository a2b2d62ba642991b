package httpserve

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// OIDCConfig accepts OIDC access or ID tokens (signed JWTs) as bearer
// tokens (spec §3).
type OIDCConfig struct {
	// Issuer is the exact iss every token must carry.
	Issuer string
	// Audiences are the accepted aud values; a token must name one.
	Audiences []string
	// AuthorizedParties are the azp values accepted besides the audiences.
	AuthorizedParties []string
	// JWKS locates the issuer's keys: a JSON Web Key Set file, or an
	// https URL (fetched when first needed, again when a token names an
	// unknown kid, at most once a minute, and at least once an hour).
	JWKS string
}

// The timing rules of the verifier (spec §3, §15).
const (
	// oidcLeeway is the clock skew allowed on exp and nbf.
	oidcLeeway = 60 * time.Second
	// jwksRefetch is the shortest time between two loads of the key set.
	jwksRefetch = time.Minute
	// jwksMaxAge is how long a loaded key set is used before a reload.
	jwksMaxAge = time.Hour
	// maxTokenBytes bounds a bearer token handed to the JWT parser.
	maxTokenBytes = 8192
)

// oidcVerifier turns a JWT into an identity.
type oidcVerifier struct {
	cfg OIDCConfig
	src *keySource
	now func() time.Time

	mu       sync.Mutex
	keys     []verifyKey
	loadedAt time.Time
	// tried is when the last load was attempted, successful or not, so a
	// flood of tokens with made-up kids fetches at most once a minute.
	tried time.Time
}

// newOIDCVerifier checks cfg; a key set in a file is loaded at once, so a
// bad file stops the server from starting.
func newOIDCVerifier(cfg OIDCConfig, now func() time.Time) (*oidcVerifier, error) {
	if cfg.Issuer == "" || len(cfg.Audiences) == 0 || cfg.JWKS == "" {
		return nil, fmt.Errorf("%w: OIDC needs an issuer, at least one audience and a key set", ErrBadConfig)
	}
	src, err := newKeySource(cfg.JWKS)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	v := &oidcVerifier{cfg: cfg, src: src, now: now}
	if !src.remote {
		if v.keys, err = src.load(context.Background()); err != nil {
			return nil, fmt.Errorf("%w: --oidc-jwks: %w", ErrBadConfig, err)
		}
		v.loadedAt, v.tried = now(), now()
	}
	return v, nil
}

// key returns the key kid names for alg (with no kid, the only key of
// alg), reloading the set when it is stale or lacks kid.
func (v *oidcVerifier) key(ctx context.Context, kid, alg string) (verifyKey, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if k, ok := pickKey(v.keys, kid, alg); ok && now.Sub(v.loadedAt) < jwksMaxAge {
		return k, ""
	}
	if v.tried.IsZero() || now.Sub(v.tried) >= jwksRefetch {
		v.tried = now
		// The load outlives the caller who triggered it (the client's
		// timeout still bounds it): it is rate-limited, so a caller who
		// hangs up must not cancel it for everyone else.
		if keys, err := v.src.load(context.WithoutCancel(ctx)); err == nil {
			v.keys, v.loadedAt = keys, now
		}
	}
	// A set that could not be reloaded within jwksMaxAge is no longer
	// trusted: a revoked key must stop working.
	if v.keys == nil || now.Sub(v.loadedAt) >= jwksMaxAge {
		return verifyKey{}, reasonKeysDown
	}
	if k, ok := pickKey(v.keys, kid, alg); ok {
		return k, ""
	}
	return verifyKey{}, reasonUnknownKey
}

func pickKey(keys []verifyKey, kid, alg string) (verifyKey, bool) {
	var found []verifyKey
	for _, k := range keys {
		if k.alg == alg && (kid == "" || k.kid == kid) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return verifyKey{}, false
	}
	return found[0], true
}
