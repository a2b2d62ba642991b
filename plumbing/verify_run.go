package plumbing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// VerifyRunResult is what `tine verify RUN` reports: the verdict of every
// attestation on the run, each judged as Verify judges one.
type VerifyRunResult struct {
	Target string `json:"target"`
	// Kind is "run".
	Kind  string `json:"kind"`
	OID   string `json:"oid"`
	Armed bool   `json:"armed"`
	// OK holds when every attestation passed (armed: each is signed and
	// verifies with the keys given, and there is at least one).
	OK           bool           `json:"ok"`
	Attestations []VerifyResult `json:"attestations"`
	// Problem names the first attestation that failed, or says that an
	// armed check found nothing signed; empty when OK.
	Problem string `json:"problem,omitempty"`
}

// NamesRun reports whether rev resolves to a stored run (tine verify then
// checks the run's attestations rather than one object).
func (r *Repo) NamesRun(ctx context.Context, rev string) bool {
	id, err := r.Resolve(ctx, rev)
	return err == nil && id.Type == objects.TypeRun
}

// VerifyRun checks the signature of every attestation whose target is the
// run opt.Target names (found through the derived catalog, each read back
// through the store, which verifies it), with Verify's keys and rules.
// Signatures live on attestations: a run's events and the run object are
// content-addressed, not signed. Armed, a run with no attestation fails:
// nothing vouches for it.
func VerifyRun(ctx context.Context, r *Repo, opt VerifyOptions) (*VerifyRunResult, error) {
	for _, p := range opt.Pins {
		if len(p) < 16 || len(p) > 64 || strings.Trim(strings.ToLower(p), "0123456789abcdef") != "" {
			return nil, fmt.Errorf("verify: pin %q is not 16 to 64 hex digits of a key fingerprint: %w", p, ErrBadInput)
		}
	}
	vopt, err := VerifyKeys(opt)
	if err != nil {
		return nil, err
	}
	id, err := r.Resolve(ctx, opt.Target)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if id.Type != objects.TypeRun {
		return nil, fmt.Errorf("verify %s: a %s, not a run: %w", id, id.Type, ErrBadInput)
	}
	cat, _, err := OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify: catalog: %w", err)
	}
	res := &VerifyRunResult{Target: opt.Target, Kind: "run", OID: id.String(), Attestations: []VerifyResult{}}
	res.Armed = opt.KeyFile != "" || opt.PubKey != "" || opt.RequireSignature || opt.TrustEmbedded || len(opt.Pins) > 0
	res.OK = true
	for _, a := range cat.AttestationsFor(id) {
		o, err := r.objs.Get(ctx, a.ID)
		if errors.Is(err, objects.ErrNotFound) {
			continue // pruned since the catalog was built: a miss, not a fact
		}
		if err != nil {
			return nil, fmt.Errorf("verify: attestation %s: %w", a.ID, err)
		}
		v := VerifyResult{Target: a.ID.String(), Kind: string(objects.FamilyAttestation), OID: a.ID.String(), Armed: res.Armed}
		v.Signature = objects.VerifyAttestation(o.Value, vopt)
		v.KeyMismatch = ExplainKeyMismatch(objects.FamilyAttestation, o.Value, v.Signature, vopt)
		v.OK, v.Problem = judge(&v, opt.Pins)
		if !res.Armed && v.Signature.State == objects.StateNoKey {
			// Unarmed, no key says whom to trust, but an Ed25519
			// signature that fails against the very key it carries was
			// altered after signing: that is a fact about the bytes, and
			// tine show already reports it, so verify must not say ok.
			if tofu := objects.VerifyAttestation(o.Value, objects.VerifyOptions{TrustEmbedded: true}); tofu.State == objects.StateMismatch {
				v.Signature = tofu
				v.Signature.Reason = "signature mismatch: it does not verify even against its own embedded key (altered after signing)"
				v.OK, v.Problem = false, v.Signature.Reason
			}
		}
		if !v.OK && res.OK {
			res.OK, res.Problem = false, "attestation "+a.ID.String()+": "+v.Problem
		}
		res.Attestations = append(res.Attestations, v)
	}
	if res.Armed && len(res.Attestations) == 0 {
		res.OK, res.Problem = false, "the run has no attestations: nothing signed vouches for it"
	}
	return res, nil
}
