package trust

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Errors of the trust verbs (attest, evaluate, annotate, promote).
var (
	// ErrBadClaim means an attestation claim was refused: not a JSON
	// object, not strict JSON, or too large.
	ErrBadClaim = errors.New("bad attestation claim")
	// ErrBadScore means a --score argument was refused: a bad name, a value
	// that is not a finite JSON number, or a repeated name.
	ErrBadScore = errors.New("bad score")
	// ErrBadAnnotation means a --set/--unset argument was refused.
	ErrBadAnnotation = errors.New("bad annotation")
	// ErrNotStored means a revision names a derived run (REV~N) that no
	// stored object holds, where a stored run is needed.
	ErrNotStored = errors.New("derived run is not stored")
)

// MaxClaimBytes bounds a claim file, checked before it is read whole.
const MaxClaimBytes = 1 << 20

// DefaultSigner is the signer an attestation names when none is given.
const DefaultSigner = runs.DefaultActor

// SignWith says how the trust verbs sign an attestation (tine-attest/1).
// A zero SignWith stores the attestation unsigned ("signature": null).
type SignWith struct {
	// KeyFile is a key file (SPEC §4.1): an Ed25519 seed, or with HMAC the
	// HMAC secret's bytes. "" leaves the attestation unsigned.
	KeyFile string
	// HMAC signs with HMAC-SHA256 instead of Ed25519.
	HMAC bool
	// KeyID labels the key in the signed header; "" means absent.
	KeyID string
	// Now stamps signed_at; nil leaves it absent.
	Now func() time.Time
}

// AttestOptions configures Attest.
type AttestOptions struct {
	// Target is a revision naming a stored run.
	Target string
	// Claim is the claim: a JSON object (ParseClaim reads a file strictly).
	Claim objects.Value
	// Evidence are revisions of any objects the claim rests on.
	Evidence []string
	// Signer names who attests; "" means DefaultSigner.
	Signer string
	SignWith
}

// AttestResult is what `tine attest` and `tine evaluate` report.
type AttestResult struct {
	OID    string `json:"oid"`
	Target string `json:"target"`
	Signer string `json:"signer"`
	// Signed reports a tine-attest/1 block; Algorithm, KeyID and
	// Fingerprint describe it.
	Signed      bool    `json:"signed"`
	Algorithm   string  `json:"algorithm,omitempty"`
	KeyID       *string `json:"key_id,omitempty"`
	Fingerprint string  `json:"fingerprint,omitempty"`
	// Scores are an evaluation's scores, in argument order.
	Scores []Score `json:"scores,omitempty"`
	// IndexError says the derived catalog could not be updated (the
	// attestation is stored regardless; the next query catches up).
	IndexError string `json:"index_error,omitempty"`
}

// ParseClaim reads a claim file strictly (SPEC §3.5: "attest claims must
// be JSON objects"): at most MaxClaimBytes, no duplicate keys, no lone
// surrogates, no non-finite numbers, no integer outside ±(2^53-1), and an
// object at the top.
func ParseClaim(r io.Reader, name string) (objects.Value, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxClaimBytes+1))
	if err != nil {
		return objects.Value{}, fmt.Errorf("claim %s: %w", name, err)
	}
	if len(b) > MaxClaimBytes {
		return objects.Value{}, fmt.Errorf("claim %s: over %d bytes: %w", name, MaxClaimBytes, ErrBadClaim)
	}
	v, err := objects.ParseInput(b, objects.ParseOptions{MaxIntDigits: 4096})
	if err != nil {
		return objects.Value{}, fmt.Errorf("claim %s: %w: %w", name, ErrBadClaim, err)
	}
	if v.Kind != objects.KindObject {
		return objects.Value{}, fmt.Errorf("claim %s is a JSON %s; a claim must be a JSON object: %w", name, v.Kind, ErrBadClaim)
	}
	return v, nil
}

// Attest stores an attestation {claim, evidence_ids, signer, target_id,
// signature} on the run Target resolves to, signed when SignWith names a
// key (SPEC §4.5: redact, sign, store).
func Attest(ctx context.Context, r *plumbing.Repo, opt AttestOptions) (*AttestResult, error) {
	if opt.Claim.Kind != objects.KindObject {
		return nil, fmt.Errorf("attest: a claim must be a JSON object: %w", ErrBadClaim)
	}
	run, err := storedRun(ctx, r, opt.Target)
	if err != nil {
		return nil, fmt.Errorf("attest: %w", err)
	}
	evidence := make([]objects.Value, 0, len(opt.Evidence))
	for _, rev := range opt.Evidence {
		id, err := r.Resolve(ctx, rev)
		if err != nil {
			return nil, fmt.Errorf("attest: evidence: %w", err)
		}
		evidence = append(evidence, objects.String(id.String()))
	}
	return writeAttestation(ctx, r, run, opt.Claim, evidence, opt.Signer, opt.SignWith)
}

// writeAttestation builds, redacts, optionally signs, validates and stores
// one attestation on run, then brings the derived catalog up to date.
func writeAttestation(ctx context.Context, r *plumbing.Repo, run objects.OID, claim objects.Value, evidence []objects.Value, signer string, sw SignWith) (*AttestResult, error) {
	key, err := sw.Load()
	if err != nil {
		return nil, err
	}
	o, res, err := NewAttestation(r.Algo(), run, claim, evidence, signer, key, sw)
	if err != nil {
		return nil, err
	}
	if _, err := r.WriteValidated(ctx, []*objects.Object{o}, nil); err != nil {
		return nil, err
	}
	if err := runs.RefreshIndex(ctx, r); err != nil {
		res.IndexError = err.Error()
	}
	return res, nil
}

// Load reads the signing key sw names, or returns nil when it names none
// (the attestation is stored unsigned). Callers that sign after long work
// (gate run) load it first, so a bad key file fails before the work.
func (sw SignWith) Load() (*objects.SigningKey, error) {
	if sw.KeyFile == "" {
		return nil, nil
	}
	return plumbing.LoadSigningKey(sw.KeyFile, sw.HMAC)
}

// NewAttestation builds one attestation {claim, evidence_ids, signature,
// signer, target_id} on run: redacted and stored unsigned when key is nil,
// else redacted and signed with key (tine-attest/1, SPEC §4.5), sw giving
// the key id and the signing time. It stores nothing. Every verb that
// writes an attestation (attest, evaluate, gate run, gate ci) builds it
// here, so they sign alike.
func NewAttestation(algo objects.Algo, run objects.OID, claim objects.Value, evidence []objects.Value, signer string, key *objects.SigningKey, sw SignWith) (*objects.Object, *AttestResult, error) {
	if signer == "" {
		signer = DefaultSigner
	}
	payload := objects.ObjectValue(
		objects.Member{Key: "claim", Value: claim},
		objects.Member{Key: "evidence_ids", Value: objects.Array(evidence...)},
		objects.Member{Key: "signature", Value: objects.Null()},
		objects.Member{Key: "signer", Value: objects.String(signer)},
		objects.Member{Key: "target_id", Value: objects.String(run.String())},
	)
	res := &AttestResult{Target: run.String(), Signer: signer}
	var o *objects.Object
	if key == nil {
		red, _ := objects.RedactValue(payload)
		var err error
		if o, err = objects.NewJSONObject(algo, objects.TypeAttestation, 1, red); err != nil {
			return nil, nil, fmt.Errorf("attestation on %s: %w", run, err)
		}
	} else {
		req := objects.AttestSignRequest{Key: key}
		if sw.KeyID != "" {
			req.KeyID = &sw.KeyID
		}
		if sw.Now != nil {
			at := sw.Now().UTC().Format(time.RFC3339)
			req.SignedAt = &at
		}
		var err error
		if o, _, err = objects.AttestSign(algo, payload, req); err != nil {
			return nil, nil, fmt.Errorf("sign attestation on %s: %w", run, err)
		}
		res.Signed, res.Algorithm, res.KeyID, res.Fingerprint = true, key.Alg(), req.KeyID, key.Fingerprint()
	}
	if s, ok := o.Value.Get("signer"); ok && s.Kind == objects.KindString {
		res.Signer = s.Str
	}
	res.OID = o.ID.String()
	return o, res, nil
}

// storedRun resolves rev to a stored run's oid; a derived REV~N run is
// refused, since an attestation must name an object that exists.
func storedRun(ctx context.Context, r *plumbing.Repo, rev string) (objects.OID, error) {
	run, _, err := runs.ResolveRun(ctx, r, rev)
	if err != nil {
		return objects.OID{}, err
	}
	if !run.Stored {
		return objects.OID{}, fmt.Errorf("%s names a run that is not stored (see tine reflog for its stored snapshots): %w", rev, ErrNotStored)
	}
	return run.ID, nil
}
