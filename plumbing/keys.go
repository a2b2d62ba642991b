package plumbing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
)

// ErrKeyFileExists means keygen would overwrite a key file without Force.
var ErrKeyFileExists = errors.New("key file already exists")

// KeygenOptions configures Keygen.
type KeygenOptions struct {
	// HMAC generates a 32-byte HMAC secret instead of an Ed25519 key pair.
	HMAC bool
	// Out receives the secret as lowercase hex and LF, mode 0600: the
	// Ed25519 seed, or the HMAC key (whose key bytes are that hex text, as
	// SPEC §4.1 takes a key file's bytes as they are).
	Out string
	// Pub receives the Ed25519 public key as hex and LF (Ed25519 only).
	Pub string
	// Force replaces existing files; without it an existing file is refused
	// before anything is written.
	Force bool
	// Rand is the randomness source; nil means crypto/rand.
	Rand io.Reader
}

// KeygenResult is what `tine keygen` reports. The secret itself is never in
// it.
type KeygenResult struct {
	Algorithm string `json:"algorithm"`
	Out       string `json:"out"`
	Pub       string `json:"pub,omitempty"`
	// PublicKey is the Ed25519 public key as hex; empty for HMAC.
	PublicKey string `json:"public_key,omitempty"`
	// Fingerprint is objects.KeyFingerprint of the verifying key (the
	// public key, or the HMAC key's bytes): what `tine verify --pin` takes.
	Fingerprint string `json:"fingerprint"`
}

// Keygen writes a new signing key. It needs no repository (r may be nil).
func Keygen(ctx context.Context, r *Repo, opt KeygenOptions) (*KeygenResult, error) {
	switch {
	case opt.Out == "":
		return nil, fmt.Errorf("keygen: an output file is required: %w", ErrBadInput)
	case opt.HMAC && opt.Pub != "":
		return nil, fmt.Errorf("keygen: an HMAC key has no public half; drop the public-key file: %w", ErrBadInput)
	case opt.Pub != "" && filepath.Clean(opt.Pub) == filepath.Clean(opt.Out):
		return nil, fmt.Errorf("keygen: the secret and public key files must differ: %w", ErrBadInput)
	}
	if !opt.Force {
		for _, p := range []string{opt.Out, opt.Pub} {
			if _, err := os.Lstat(p); p != "" && err == nil {
				return nil, fmt.Errorf("keygen %s: %w (pass --force to replace it)", p, ErrKeyFileExists)
			}
		}
	}
	src := opt.Rand
	if src == nil {
		src = rand.Reader
	}
	secret := make([]byte, 32)
	if _, err := io.ReadFull(src, secret); err != nil {
		return nil, fmt.Errorf("keygen: reading randomness: %w", err)
	}
	text := []byte(hex.EncodeToString(secret))
	res := &KeygenResult{Algorithm: objects.AlgHMACSHA256, Out: opt.Out}
	key, err := objects.NewHMACSigningKey(text)
	if !opt.HMAC {
		res.Algorithm = objects.AlgEd25519
		key, err = objects.NewEd25519SigningKey(secret)
	}
	if err != nil {
		return nil, fmt.Errorf("keygen: %w", err)
	}
	res.Fingerprint = key.Fingerprint()
	if err := writeKeyFile(opt.Out, text, 0o600, opt.Force); err != nil {
		return nil, err
	}
	if pub := key.PublicKey(); pub != nil {
		res.PublicKey = hex.EncodeToString(pub)
		if opt.Pub != "" {
			res.Pub = opt.Pub
			if err := writeKeyFile(opt.Pub, []byte(res.PublicKey), 0o644, opt.Force); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// writeKeyFile creates path exclusively with mode perm and writes text and
// LF. With force an existing file is removed first, so the new file gets
// perm rather than inheriting a looser mode.
func writeKeyFile(path string, text []byte, perm fs.FileMode, force bool) error {
	if force {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("keygen: replacing %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("keygen %s: %w (pass --force to replace it)", path, ErrKeyFileExists)
	}
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	_, werr := f.Write(append(text, '\n'))
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("keygen: writing %s: %w", path, werr)
	}
	return nil
}

// ReadKeyFile reads a key file by the SPEC §4.1 rule (objects.ReadKeyFile);
// errors name the file.
func ReadKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := objects.ReadKeyFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
