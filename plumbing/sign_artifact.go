package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// ErrSignOutputExists means `tine sign` would replace an existing output file
// without Overwrite.
var ErrSignOutputExists = errors.New("output file already exists")

// SignArtifactOptions configures SignArtifact.
type SignArtifactOptions struct {
	// Path is the .tine file to sign.
	Path string
	// Output receives the signed file; it must not exist unless Overwrite.
	// Exactly one of Output and InPlace is given.
	Output string
	// InPlace rewrites Path itself (atomically), the explicit opt-in to
	// replacing the input.
	InPlace bool
	// Overwrite lets Output replace an existing file.
	Overwrite bool
	// KeyFile holds the key (SPEC §4.1 key file): an Ed25519 seed (32 raw
	// bytes or 64 hex), or with HMAC the HMAC secret's bytes.
	KeyFile string
	// HMAC signs with HMAC-SHA256 instead of Ed25519.
	HMAC bool
	// KeyID, Signer and SignedAt are the header labels; empty means absent.
	// SignedAt must be an RFC 3339 time and is recorded as given.
	KeyID, Signer, SignedAt string
}

// SignArtifactResult is what `tine sign FILE.tine` reports.
type SignArtifactResult struct {
	// Kind is "artifact".
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Output  string `json:"output"`
	InPlace bool   `json:"in_place"`
	RunID   string `json:"run_id"`
	// Digest is the signed file's integrity digest.
	Digest      string  `json:"digest"`
	Algorithm   string  `json:"algorithm"`
	Scheme      string  `json:"scheme"`
	KeyID       *string `json:"key_id"`
	Signer      *string `json:"signer"`
	SignedAt    *string `json:"signed_at"`
	Fingerprint string  `json:"fingerprint"`
	// Redacted counts the secret values redacted before signing.
	Redacted int `json:"redacted"`
}

// SignArtifact signs a .tine file under tine-sig/2 (objects.SignArtifact)
// and writes the result crash-safely: to a new Output (never replacing a
// file unless Overwrite), or over the input with InPlace. It needs no
// repository. The input must pass its integrity check, be a finished run
// (completed or failed, not a draft) and carry no signature yet.
func SignArtifact(ctx context.Context, opt SignArtifactOptions) (*SignArtifactResult, error) {
	out, err := signTarget(opt)
	if err != nil {
		return nil, err
	}
	if opt.SignedAt != "" {
		if _, err := time.Parse(time.RFC3339, opt.SignedAt); err != nil {
			return nil, fmt.Errorf("sign: signed-at %q is not an RFC 3339 time such as 2026-01-01T00:00:00Z: %w", opt.SignedAt, ErrBadInput)
		}
	}
	key, err := LoadSigningKey(opt.KeyFile, opt.HMAC)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	fi, err := os.Stat(opt.Path)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	b, err := fsutil.ReadFile(opt.Path, objects.MaxArtifactBytes)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	doc, err := objects.ParseArtifact(b)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", opt.Path, err)
	}
	req := objects.ArtifactSignRequest{Key: key, KeyID: optional(opt.KeyID), Signer: optional(opt.Signer), SignedAt: optional(opt.SignedAt)}
	signed, err := objects.SignArtifact(doc, req)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", opt.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sign %s: %w", opt.Path, err)
	}
	// The signed copy keeps the input's permission bits.
	if err := writeSigned(out, signed.Bytes, fi.Mode().Perm(), opt.InPlace || opt.Overwrite); err != nil {
		return nil, err
	}
	blk := signed.Block
	return &SignArtifactResult{
		Kind: string(objects.FamilyArtifact), Path: opt.Path, Output: out, InPlace: opt.InPlace, RunID: signed.RunID,
		Digest: signed.Digest, Algorithm: blk.Alg, Scheme: blk.Scheme, KeyID: blk.KeyID, Signer: blk.Signer,
		SignedAt: blk.SignedAt, Fingerprint: key.Fingerprint(), Redacted: signed.Redacted,
	}, nil
}

// signTarget checks where the signed file goes and returns that path.
func signTarget(opt SignArtifactOptions) (string, error) {
	switch {
	case opt.InPlace && opt.Output != "":
		return "", fmt.Errorf("sign: an output file and in-place signing cannot be combined: %w", ErrBadInput)
	case !opt.InPlace && opt.Output == "":
		return "", fmt.Errorf("sign: name the output file, or ask for the input to be rewritten in place: %w", ErrBadInput)
	case opt.InPlace && opt.Overwrite:
		return "", fmt.Errorf("sign: overwrite has no effect when signing in place: %w", ErrBadInput)
	}
	in, err := os.Lstat(opt.Path)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	if opt.InPlace {
		if !in.Mode().IsRegular() {
			return "", fmt.Errorf("sign %s: not a regular file (a symlink is not rewritten in place; name the file it points to): %w", opt.Path, ErrBadInput)
		}
		return opt.Path, nil
	}
	if st, err := os.Stat(opt.Output); err == nil {
		if src, serr := os.Stat(opt.Path); serr == nil && os.SameFile(src, st) {
			return "", fmt.Errorf("sign: the output %s is the input file; pass --in-place to rewrite it: %w", opt.Output, ErrBadInput)
		}
	}
	return filepath.Clean(opt.Output), nil
}

// writeSigned writes the signed bytes to path crash-safely: replacing it
// when replace is set, else creating it only if it does not exist.
func writeSigned(path string, data []byte, perm fs.FileMode, replace bool) error {
	var err error
	if replace {
		err = fsutil.WriteFileAtomic(path, data, perm)
	} else {
		err = fsutil.CreateFileAtomic(path, data, perm)
	}
	var unknown *fsutil.UnknownStateError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist) && !replace:
		return fmt.Errorf("sign: %s: %w (pass --overwrite to replace it)", path, ErrSignOutputExists)
	case errors.As(err, &unknown):
		return fmt.Errorf("sign: %w", err)
	}
	return fmt.Errorf("sign: writing %s: %w", path, err)
}

// optional returns nil for "" and &s otherwise.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
