package gate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// InputDigestPrefix is the domain prefix of tine's input digest format.
// SPEC §2 versions ConstraintLoop's format by its prefix
// ("constraintloop-input-v3"); tine's differs from it (file contents are
// framed by their SHA-256, and the contract identity is tine's canonical
// digest), so it carries its own name, and a future change bumps the
// version, which deliberately stales all evidence and waivers.
const InputDigestPrefix = "tine-gate-input-v1\x00"

// DigestInput is everything a constraint's input digest covers.
type DigestInput struct {
	// ConstraintID names the constraint; it must not be empty.
	ConstraintID string
	// ContractDigest is the whole contract's identity (Contract.Digest):
	// any contract edit stales all evidence and waivers (SPEC Surprises 1,
	// kept deliberately: a setting or evaluator edit can change verdicts).
	ContractDigest string
	// Checkout is Checkout.Snapshot().
	Checkout []byte
	// Spec is Constraint.CanonicalSpec().
	Spec []byte
	// Baseline is set for ratchets only.
	Baseline *BaselineInput
	// Files are the watched files; InputDigest sorts them by path.
	Files []WatchedFile
}

// BaselineInput is the ratchet baseline file as the digest sees it.
type BaselineInput struct {
	// Present is false when the file could not be read; Err then says why.
	Present bool
	Bytes   []byte
	Err     string
}

// WatchedFile is one file matched by the watch globs.
type WatchedFile struct {
	// Path is project-relative, POSIX, clean.
	Path string
	// Present is false when the file could not be read; Err then says why.
	Present bool
	// SHA256 is the lowercase hex SHA-256 of the file's bytes.
	SHA256 string
	Err    string
}

// InputDigest returns the versioned, length-framed digest of in as 64
// lowercase hex characters (SPEC §2 input digest). Each field is framed as
// an 8-byte big-endian length and the bytes, so no two inputs collide by
// shifting bytes between fields:
//
//	sha256(InputDigestPrefix
//	  frame(id) frame(contract) frame(checkout) frame(spec)
//	  [ratchet] frame("baseline-present") frame(bytes) | frame("baseline-unavailable") frame(err)
//	  for each file by path: frame(path) frame("file-present") frame(sha256 hex) | frame("file-unavailable") frame(err))
//
// Files are sorted by path; an identical duplicate is dropped and a
// conflicting one is an error. The digest is a cache key, not an object
// identity, so it is plain SHA-256 whatever the repository's hash.
func InputDigest(in DigestInput) (string, error) {
	if in.ConstraintID == "" {
		return "", fmt.Errorf("%w: empty constraint id", ErrDigestInput)
	}
	files := slices.Clone(in.Files)
	slices.SortStableFunc(files, func(a, b WatchedFile) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	h.Write([]byte(InputDigestPrefix))
	frame(h, []byte(in.ConstraintID))
	frame(h, []byte(in.ContractDigest))
	frame(h, in.Checkout)
	frame(h, in.Spec)
	if b := in.Baseline; b != nil {
		if b.Present {
			frame(h, []byte("baseline-present"))
			frame(h, b.Bytes)
		} else {
			frame(h, []byte("baseline-unavailable"))
			frame(h, []byte(b.Err))
		}
	}
	for i, f := range files {
		if msg := checkRelPath(f.Path); msg != "" || f.Path == "" || f.Path != filepath.ToSlash(filepath.Clean(f.Path)) {
			return "", fmt.Errorf("%w: watched path %q is not a clean project-relative path", ErrDigestInput, f.Path)
		}
		if i > 0 && files[i-1].Path == f.Path {
			if files[i-1] != f {
				return "", fmt.Errorf("%w: watched path %q listed twice with different content", ErrDigestInput, f.Path)
			}
			continue
		}
		frame(h, []byte(f.Path))
		if f.Present {
			if len(f.SHA256) != 64 || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
				return "", fmt.Errorf("%w: watched path %q has a malformed content hash", ErrDigestInput, f.Path)
			}
			frame(h, []byte("file-present"))
			frame(h, []byte(f.SHA256))
		} else {
			frame(h, []byte("file-unavailable"))
			frame(h, []byte(f.Err))
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func frame(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// CollectInput gathers the digest input of constraint c in the project at
// root: the canonical spec, the ratchet baseline bytes and every watched
// file's content hash. Unreadable files are framed by a stable error text
// (no absolute path), so the digest does not depend on the machine.
func CollectInput(root string, contract *Contract, c *Constraint, co Checkout) (DigestInput, error) {
	spec, err := c.CanonicalSpec()
	if err != nil {
		return DigestInput{}, err
	}
	snap, err := co.Snapshot()
	if err != nil {
		return DigestInput{}, err
	}
	in := DigestInput{ConstraintID: c.ID, ContractDigest: contract.Digest, Checkout: snap, Spec: spec}
	if c.Ratchet != nil {
		b, err := readConfined(root, c.Ratchet.BaselineFile, maxBaselineBytes)
		if err != nil {
			in.Baseline = &BaselineInput{Err: stableError(err)}
		} else {
			in.Baseline = &BaselineInput{Present: true, Bytes: b}
		}
	}
	paths, err := MatchingFiles(root, c.Watch)
	if err != nil {
		return DigestInput{}, fmt.Errorf("constraint %s: %w", c.ID, err)
	}
	for _, p := range paths {
		sum, err := hashFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			in.Files = append(in.Files, WatchedFile{Path: p, Err: stableError(err)})
			continue
		}
		in.Files = append(in.Files, WatchedFile{Path: p, Present: true, SHA256: sum})
	}
	return in, nil
}

// ComputeInputDigest is CollectInput followed by InputDigest.
func ComputeInputDigest(root string, contract *Contract, c *Constraint, co Checkout) (string, error) {
	in, err := CollectInput(root, contract, c, co)
	if err != nil {
		return "", err
	}
	return InputDigest(in)
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stableError reduces an I/O error to its machine-independent cause.
func stableError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "file does not exist"
	case errors.Is(err, errOutsideRoot):
		return errOutsideRoot.Error()
	case errors.Is(err, errTooLarge):
		return errTooLarge.Error()
	}
	return "unreadable"
}
