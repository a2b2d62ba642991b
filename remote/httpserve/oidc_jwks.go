package httpserve

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/remote/wire"
)

// maxJWKSBytes bounds a key set, read from a file or over HTTP.
const maxJWKSBytes = 1 << 20

// minRSABits is the smallest RSA modulus accepted for RS256.
const minRSABits = 2048

// jwk is one key of a JSON Web Key Set (RFC 7517) as far as RS256 and
// ES256 need it.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// verifyKey is a usable key: its JWT algorithm and public key.
type verifyKey struct {
	kid string
	alg string
	pub crypto.PublicKey
}

// parseJWKS decodes a key set, keeping the RSA (≥2048 bits) and P-256 EC
// signature keys and skipping every other kind (a set may serve other
// algorithms to other verifiers). A key of a kept kind that does not
// decode is an error: a broken set is reported, not half used.
func parseJWKS(b []byte) ([]verifyKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("not a JSON Web Key Set: %w", err)
	}
	var out []verifyKey
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var vk verifyKey
		var err error
		switch {
		case k.Kty == "RSA" && (k.Alg == "" || k.Alg == "RS256"):
			vk, err = rsaKey(k)
		case k.Kty == "EC" && k.Crv == "P-256" && (k.Alg == "" || k.Alg == "ES256"):
			vk, err = ecKey(k)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("key %d (kid %.40q): %w", i, k.Kid, err)
		}
		out = append(out, vk)
	}
	if len(out) == 0 {
		return nil, errors.New("the key set holds no RS256 or ES256 signature key")
	}
	return out, nil
}

func rsaKey(k jwk) (verifyKey, error) {
	n, err1 := b64url(k.N)
	e, err2 := b64url(k.E)
	if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
		return verifyKey{}, errors.New("bad RSA modulus or exponent")
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	if pub.N.BitLen() < minRSABits || pub.E < 3 || pub.E%2 == 0 {
		return verifyKey{}, fmt.Errorf("RSA key of %d bits or exponent %d refused (at least %d bits, odd exponent)", pub.N.BitLen(), pub.E, minRSABits)
	}
	return verifyKey{kid: k.Kid, alg: "RS256", pub: pub}, nil
}

func ecKey(k jwk) (verifyKey, error) {
	x, err1 := b64url(k.X)
	y, err2 := b64url(k.Y)
	if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
		return verifyKey{}, errors.New("bad P-256 coordinates")
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return verifyKey{}, fmt.Errorf("not a P-256 point: %w", err)
	}
	return verifyKey{kid: k.Kid, alg: "ES256", pub: pub}, nil
}

// b64url decodes unpadded base64url strictly (RFC 7515 §2): padding,
// other alphabets and non-canonical trailing bits are refused.
func b64url(s string) ([]byte, error) {
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

// keySource loads the key set: a file, or an https URL (http only on a
// literal loopback IP, for tests).
type keySource struct {
	loc    string
	remote bool
	client *http.Client
}

func newKeySource(loc string) (*keySource, error) {
	if !strings.Contains(loc, "://") {
		return &keySource{loc: loc}, nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("--oidc-jwks %s: %w", loc, err)
	}
	ip := net.ParseIP(u.Hostname())
	if u.Scheme != "https" && !(u.Scheme == "http" && ip != nil && ip.IsLoopback()) {
		return nil, fmt.Errorf("--oidc-jwks %s: use https (http only on a loopback IP)", loc)
	}
	return &keySource{loc: loc, remote: true, client: &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{Proxy: nil, MaxResponseHeaderBytes: wire.MaxReplyHeader},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}, nil
}

func (k *keySource) load(ctx context.Context) ([]verifyKey, error) {
	var b []byte
	var err error
	if k.remote {
		b, err = k.fetch(ctx)
	} else {
		b, err = fsutil.ReadFileWith(k.loc, fsutil.ReadOptions{Limit: maxJWKSBytes})
	}
	if err != nil {
		return nil, err
	}
	keys, err := parseJWKS(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.loc, err)
	}
	return keys, nil
}

func (k *keySource) fetch(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.loc, nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, wire.TransportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", k.loc, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.loc, err)
	}
	if len(b) > maxJWKSBytes {
		return nil, fmt.Errorf("%s: key set over %d bytes", k.loc, maxJWKSBytes)
	}
	return b, nil
}
