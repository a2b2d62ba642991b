package objects

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// ReadKeyFile reads key material the way SPEC §4.1 defines a key file: at
// most MaxKeyFileBytes (checked before the rest is read), with exactly one
// trailing LF stripped. The bytes are otherwise taken as they are: an HMAC
// key is the file's bytes, not their hex decoding.
func ReadKeyFile(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading key file: %w", err)
	}
	if len(b) > MaxKeyFileBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrKeyFileTooLarge, MaxKeyFileBytes)
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b, nil
}

// CheckHMACKey enforces the HMAC key floor (SPEC §4.1). Its message for a
// short key is the verdict reason the suite pins:
// "HMAC key too short (15 bytes); use at least 16".
func CheckHMACKey(key []byte) error {
	if len(key) == 0 {
		return &weakKeyError{n: 0}
	}
	if len(key) < MinHMACKeyBytes {
		return &weakKeyError{n: len(key)}
	}
	return nil
}

// weakKeyError is a short HMAC key; it wraps ErrWeakHMACKey and its text is
// exactly the reference's reason string.
type weakKeyError struct{ n int }

func (e *weakKeyError) Error() string {
	if e.n == 0 {
		return "HMAC key must be non-empty bytes"
	}
	return fmt.Sprintf("HMAC key too short (%d bytes); use at least %d", e.n, MinHMACKeyBytes)
}

func (e *weakKeyError) Unwrap() error { return ErrWeakHMACKey }

// ParseEd25519Seed reads an Ed25519 private key given as its 32-byte seed,
// raw or as 64 hex digits (surrounding white space ignored).
func ParseEd25519Seed(b []byte) (ed25519.PrivateKey, error) {
	seed, err := key32(b)
	if err != nil {
		return nil, fmt.Errorf("%w: ed25519 private key must be a 32-byte seed or 64-char hex", ErrBadKey)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// ParseEd25519PublicKey reads an Ed25519 public key given as 32 raw bytes
// or 64 hex digits (surrounding white space ignored).
func ParseEd25519PublicKey(b []byte) (ed25519.PublicKey, error) {
	pub, err := key32(b)
	if err != nil {
		return nil, fmt.Errorf("%w: ed25519 public key must be a 32-byte key or 64-char hex", ErrBadKey)
	}
	return ed25519.PublicKey(pub), nil
}

// key32 returns 32 key bytes from raw bytes or their 64-hex spelling. Raw
// wins when the input is exactly 32 bytes, as in the reference loader.
func key32(b []byte) ([]byte, error) {
	if len(b) == 32 {
		return bytes.Clone(b), nil
	}
	t := bytes.TrimSpace(b)
	if len(t) != 64 || !isHexText(string(t)) {
		return nil, ErrBadKey
	}
	out := make([]byte, 32)
	if _, err := hex.Decode(out, t); err != nil {
		return nil, ErrBadKey
	}
	return out, nil
}

// KeyFingerprint names key material without revealing it: the lowercase
// hex SHA-256 of the raw key bytes (an Ed25519 public key's 32 bytes, an
// HMAC key's bytes). Pins compare against it.
func KeyFingerprint(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// isHexText reports a non-empty, even-length run of hex digits of either
// case, the reference's test for a signature value or key.
func isHexText(s string) bool {
	if s == "" || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// SigningKey is a key ready to sign: an HMAC secret (at least
// MinHMACKeyBytes) or an Ed25519 private key.
type SigningKey struct {
	alg  string
	hmac []byte
	priv ed25519.PrivateKey
}

// NewHMACSigningKey returns an HMAC-SHA256 signing key; a key under the
// floor is refused (ErrWeakHMACKey).
func NewHMACSigningKey(key []byte) (*SigningKey, error) {
	if err := CheckHMACKey(key); err != nil {
		return nil, err
	}
	return &SigningKey{alg: AlgHMACSHA256, hmac: bytes.Clone(key)}, nil
}

// NewEd25519SigningKey returns an Ed25519 signing key from a seed, raw or
// hex (ParseEd25519Seed).
func NewEd25519SigningKey(seed []byte) (*SigningKey, error) {
	priv, err := ParseEd25519Seed(seed)
	if err != nil {
		return nil, err
	}
	return &SigningKey{alg: AlgEd25519, priv: priv}, nil
}

// Alg returns the key's algorithm name (AlgHMACSHA256 or AlgEd25519).
func (k *SigningKey) Alg() string { return k.alg }

// PublicKey returns the Ed25519 public key, or nil for an HMAC key.
func (k *SigningKey) PublicKey() ed25519.PublicKey {
	if k.priv == nil {
		return nil
	}
	pub, _ := k.priv.Public().(ed25519.PublicKey)
	return pub
}

// Fingerprint returns KeyFingerprint of the key a verifier would hold: the
// Ed25519 public key, or the HMAC secret itself.
func (k *SigningKey) Fingerprint() string {
	if k.priv != nil {
		return KeyFingerprint(k.PublicKey())
	}
	return KeyFingerprint(k.hmac)
}
