package plumbing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// VerifyOptions configures Verify. Any of KeyFile, PubKey,
// RequireSignature, TrustEmbedded or Pins arms the check: the result is
// then OK only for a verified signature (fail closed).
type VerifyOptions struct {
	// Target is a .tine file path, or a revision naming an attestation.
	Target string
	// KeyFile is a key file (SPEC §4.1): the HMAC secret for an HMAC block,
	// or an Ed25519 seed whose public half checks an Ed25519 block.
	KeyFile string
	// PubKey is an Ed25519 public key: a file holding it, or the 64 hex.
	PubKey string
	// RequireSignature refuses an unsigned target.
	RequireSignature bool
	// TrustEmbedded accepts an Ed25519 block's own public key (TOFU).
	TrustEmbedded bool
	// Pins are accepted key fingerprints (objects.KeyFingerprint): 16 to 64
	// hex digits, matched as a prefix of the verifying key's fingerprint.
	Pins []string
}

// VerifyResult is what `tine verify` reports.
type VerifyResult struct {
	Target string `json:"target"`
	// Kind is "attestation" or "artifact".
	Kind string `json:"kind"`
	OID  string `json:"oid,omitempty"`
	// Armed reports that a key or policy flag made the signature decisive.
	Armed bool `json:"armed"`
	// OK is the overall answer: the exit status of `tine verify`.
	OK bool `json:"ok"`
	// Signature is the verdict (SPEC §4.6).
	Signature objects.Verdict `json:"signature"`
	// Integrity is the .tine integrity check (artifacts only).
	Integrity *objects.IntegrityResult `json:"integrity,omitempty"`
	// KeyMismatch, for an Ed25519 mismatch against a given key, names the
	// other key the signature carries; Problem says it too.
	KeyMismatch *KeyMismatch `json:"key_mismatch,omitempty"`
	// Problem says why OK is false; empty when OK.
	Problem string `json:"problem,omitempty"`
}

// Unchecked reports a signature that is present but was not checked
// against a key the caller trusts: no key was given, or an Ed25519
// signature verified only against the key embedded in it.
func (r *VerifyResult) Unchecked() bool {
	return !r.Armed && (r.Signature.State == objects.StateNoKey || r.Signature.State == objects.StateVerifiedTOFU)
}

// IsArtifactPath reports whether target names an existing regular file,
// which Verify reads as a .tine artifact rather than a revision.
func IsArtifactPath(target string) bool {
	st, err := os.Stat(target)
	return err == nil && st.Mode().IsRegular()
}

// Verify checks the signature of an attestation or a .tine artifact. r may
// be nil for an artifact path. The verdict is always reported; errors are
// for targets or keys that cannot be read at all.
func Verify(ctx context.Context, r *Repo, opt VerifyOptions) (*VerifyResult, error) {
	for _, p := range opt.Pins {
		if len(p) < 16 || len(p) > 64 || strings.Trim(strings.ToLower(p), "0123456789abcdef") != "" {
			return nil, fmt.Errorf("verify: pin %q is not 16 to 64 hex digits of a key fingerprint: %w", p, ErrBadInput)
		}
	}
	vopt, err := VerifyKeys(opt)
	if err != nil {
		return nil, err
	}
	res := &VerifyResult{Target: opt.Target}
	res.Armed = opt.KeyFile != "" || opt.PubKey != "" || opt.RequireSignature || opt.TrustEmbedded || len(opt.Pins) > 0
	if IsArtifactPath(opt.Target) {
		doc, err := readArtifact(opt.Target)
		if err != nil {
			return nil, err
		}
		integ := objects.VerifyIntegrity(doc)
		res.Kind, res.Integrity = string(objects.FamilyArtifact), &integ
		res.Signature = objects.VerifyArtifact(doc, vopt)
		res.KeyMismatch = ExplainKeyMismatch(objects.FamilyArtifact, doc, res.Signature, vopt)
	} else {
		if r == nil {
			return nil, fmt.Errorf("verify %s: not a file, and %w", opt.Target, ErrNoRepository)
		}
		id, err := r.Resolve(ctx, opt.Target)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		o, err := r.objs.Get(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		if o.Type != objects.TypeAttestation {
			return nil, fmt.Errorf("verify %s: a %s carries no signature; name an attestation or a .tine file: %w", id, o.Type, ErrBadInput)
		}
		res.Kind, res.OID = string(objects.FamilyAttestation), id.String()
		res.Signature = objects.VerifyAttestation(o.Value, vopt)
		res.KeyMismatch = ExplainKeyMismatch(objects.FamilyAttestation, o.Value, res.Signature, vopt)
	}
	res.OK, res.Problem = judge(res, opt.Pins)
	return res, nil
}

// judge decides the overall answer. Unarmed, the signature is reported
// only (a malformed block still fails); armed, only a verified signature
// whose key matches a pin (when pins are given) passes. The problem is the
// verdict's reason, with res.KeyMismatch when there is one.
func judge(res *VerifyResult, pins []string) (bool, string) {
	if res.Integrity != nil && !res.Integrity.OK {
		return false, "integrity: " + res.Integrity.Reason
	}
	v := res.Signature
	if !res.Armed {
		if v.State == objects.StateError {
			return false, v.Reason
		}
		return true, ""
	}
	if !v.OK {
		if res.KeyMismatch != nil {
			return false, v.Reason + ": " + res.KeyMismatch.String()
		}
		return false, v.Reason
	}
	if len(pins) == 0 {
		return true, ""
	}
	for _, p := range pins {
		if strings.HasPrefix(v.Fingerprint, strings.ToLower(p)) {
			return true, ""
		}
	}
	return false, "key fingerprint " + v.Fingerprint + " matches no --pin"
}

// VerifyKeys loads the key flags of opt (KeyFile: an HMAC secret, or an
// Ed25519 seed whose public half is used; PubKey: a file or 64 hex digits;
// TrustEmbedded) into the options objects.Verify takes. Import of a .tine
// artifact uses it too, so every verb reads keys the same way.
func VerifyKeys(opt VerifyOptions) (objects.VerifyOptions, error) {
	out := objects.VerifyOptions{TrustEmbedded: opt.TrustEmbedded}
	if opt.KeyFile != "" {
		raw, err := ReadKeyFile(opt.KeyFile)
		if err != nil {
			return out, fmt.Errorf("verify: key file: %w", err)
		}
		out.HMACKey = raw
		if k, err := objects.NewEd25519SigningKey(raw); err == nil {
			out.PublicKey = k.PublicKey()
		}
	}
	if opt.PubKey != "" {
		out.PublicKey = []byte(opt.PubKey)
		if IsArtifactPath(opt.PubKey) {
			raw, err := ReadKeyFile(opt.PubKey)
			if err != nil {
				return out, fmt.Errorf("verify: public key file: %w", err)
			}
			out.PublicKey = raw
		}
	}
	return out, nil
}

// readArtifact reads and parses a .tine file under the SPEC §3.7 rules,
// bounded before allocation, through the one bounded regular-file reader.
func readArtifact(path string) (objects.Value, error) {
	// A FIFO or device is refused at once; a larger file keeps one byte
	// past the bound so ParseArtifact reports it with its reason.
	b, err := fsutil.ReadFileWith(path, fsutil.ReadOptions{Limit: objects.MaxArtifactBytes, KeepOver: true})
	if err != nil {
		return objects.Value{}, fmt.Errorf("verify: %w", err)
	}
	doc, err := objects.ParseArtifact(b)
	if err != nil {
		return objects.Value{}, fmt.Errorf("verify %s: %w", path, err)
	}
	return doc, nil
}
