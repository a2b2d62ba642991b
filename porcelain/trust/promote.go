package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// ErrPolicyUnmet means tine promote refused: the release policy's
// requirements do not hold for the run. The error lists every unmet one.
var ErrPolicyUnmet = errors.New("release policy not met")

// ExpectAbsentWord is the --expected-old spelling of "must not exist".
const ExpectAbsentWord = "absent"

// PromoteOptions configures Promote.
type PromoteOptions struct {
	// Target is a revision naming the stored run to promote.
	Target string
	// Name is the promotion; the ref is promotions/<Name>.
	Name string
	// ExpectedOld is the value promotions/<Name> must hold now: an oid or
	// revision, or "" / "absent" for "must not exist" (SPEC §2.5: an
	// omitted expected-old means absent; there is no force).
	ExpectedOld string
	// PolicyFile is the release policy; "" means DefaultPolicyPath.
	PolicyFile string
	// KeyFiles are the secrets of the policy's HMAC keys; each must match
	// the fingerprint of an HMAC key the promotion trusts.
	KeyFiles []string
	// Actor is who promotes; Reason why. Both go to the reflog.
	Actor, Reason string
}

// PromoteResult is what `tine promote` reports, refused or not.
type PromoteResult struct {
	Ref      string `json:"ref"`
	Run      string `json:"run"`
	Old      string `json:"old,omitempty"`
	Policy   string `json:"policy"`
	PolicyID string `json:"policy_id"`
	// Promoted reports that the ref moved.
	Promoted bool `json:"promoted"`
	// ReflogActor is the reflog row's actor: "<who>: <why> [policy <oid>]".
	ReflogActor string                 `json:"reflog_actor,omitempty"`
	Decision    gate.PromotionDecision `json:"decision"`
}

// Promote checks the release policy for the run Target names and, when it
// holds, moves promotions/<Name> to it by compare-and-swap from
// ExpectedOld. A refusal returns the result (with every unmet requirement
// in Decision) and an error wrapping ErrPolicyUnmet; a stale expected-old
// is a *refs.StaleError. The run's attestations come from the derived
// catalog (attestations by target), each read back through the store,
// which re-verifies it.
func Promote(ctx context.Context, r *plumbing.Repo, opt PromoteOptions) (*PromoteResult, error) {
	ref, err := refs.NormalizeName("promotions/" + opt.Name)
	if err != nil || ref != "promotions/"+opt.Name {
		return nil, fmt.Errorf("promote: promotion name %q: want a ref name under promotions/: %w", opt.Name, plumbing.ErrBadInput)
	}
	who := runs.OrDefault(opt.Actor, runs.DefaultActor)
	why := runs.OrDefault(opt.Reason, "release policy met")
	if err := checkActorText("actor", who); err != nil {
		return nil, err
	}
	if err := checkActorText("reason", why); err != nil {
		return nil, err
	}
	if strings.Contains(who, ": ") {
		return nil, fmt.Errorf("promote: actor %q contains \": \", which separates who from why in the reflog: %w", who, plumbing.ErrBadInput)
	}
	expect := refs.ExpectAbsent
	if opt.ExpectedOld != "" && opt.ExpectedOld != ExpectAbsentWord {
		id, err := r.Resolve(ctx, opt.ExpectedOld)
		if err != nil {
			return nil, fmt.Errorf("promote: --expected-old: %w", err)
		}
		expect = refs.ExpectValue(id)
	}
	res, err := decidePromotion(ctx, r, opt, ref)
	if err != nil {
		return res, err
	}
	run, err := objects.ParseOIDFor(r.Algo(), res.Run)
	if err != nil {
		return res, fmt.Errorf("promote: %w", err)
	}
	res.ReflogActor = fmt.Sprintf("%s: %s [policy %s]", who, why, res.PolicyID)
	if n := utf8.RuneCountInString(res.ReflogActor); n > refs.MaxActorChars {
		return res, fmt.Errorf("promote: actor and reason are %d characters, at most %d fit a reflog row: %w", n, refs.MaxActorChars, plumbing.ErrBadInput)
	}
	if old, err := r.Refs().Read(ctx, ref); err == nil {
		res.Old = old.String()
	}
	if err := r.Refs().UpdateExpect(ctx, ref, run, expect, res.ReflogActor); err != nil {
		res.Old = ""
		return res, fmt.Errorf("promote: move %s: %w", ref, err)
	}
	res.Promoted = true
	return res, nil
}

// CheckPromotion applies the release policy exactly as Promote does, for
// the run opt.Target names and promotion opt.Name, without moving any ref:
// the check a remote applies before it lets a pushed promotions/* ref
// move (porcelain/remotes). A refusal returns the result and an error
// wrapping ErrPolicyUnmet. ExpectedOld, Actor and Reason are not used.
func CheckPromotion(ctx context.Context, r *plumbing.Repo, opt PromoteOptions) (*PromoteResult, error) {
	ref, err := refs.NormalizeName("promotions/" + opt.Name)
	if err != nil || ref != "promotions/"+opt.Name {
		return nil, fmt.Errorf("promote: promotion name %q: want a ref name under promotions/: %w", opt.Name, plumbing.ErrBadInput)
	}
	return decidePromotion(ctx, r, opt, ref)
}

// decidePromotion loads the policy and decides whether the run may become
// ref; it moves nothing.
func decidePromotion(ctx context.Context, r *plumbing.Repo, opt PromoteOptions, ref string) (*PromoteResult, error) {
	path := opt.PolicyFile
	if path == "" {
		path = DefaultPolicyPath(r)
	}
	pol, err := LoadPolicy(path, r.Algo())
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	rule := pol.Rules[opt.Name]
	if rule == nil {
		return nil, fmt.Errorf("promote: %s names no promotion %q: %w", path, opt.Name, ErrBadPolicy)
	}
	verifiers, err := policyVerifiers(pol, rule, opt.KeyFiles)
	if err != nil {
		return nil, fmt.Errorf("promote %s: %w", opt.Name, err)
	}
	run, err := storedRun(ctx, r, opt.Target)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	atts, err := runAttestations(ctx, r, run, verifiers)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	res := &PromoteResult{Ref: ref, Run: run.String(), Policy: path, PolicyID: pol.ID.String()}
	res.Decision = gate.DecidePromotion(rule, atts)
	if !res.Decision.Met {
		unmet := res.Decision.Unmet()
		parts := make([]string, len(unmet))
		for i, u := range unmet {
			parts[i] = u.Requirement + " (" + u.Reason + ")"
		}
		return res, fmt.Errorf("promote %s refused: %d of %d requirements unmet: %s: %w", ref, len(unmet),
			len(res.Decision.Requirements), strings.Join(parts, "; "), ErrPolicyUnmet)
	}
	return res, nil
}

// checkActorText refuses empty text and control characters in reflog text.
func checkActorText(what, s string) error {
	if strings.TrimSpace(s) == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 || !utf8.ValidString(s) {
		return fmt.Errorf("promote: %s %q: want printable text on one line: %w", what, s, plumbing.ErrBadInput)
	}
	return nil
}

// policyVerifiers loads the keys rule trusts: each Ed25519 public key file
// (relative to the policy file, its fingerprint checked against the
// policy) and each HMAC secret from keyFiles (which must match an HMAC
// key the rule trusts).
func policyVerifiers(pol *Policy, rule *gate.PromotionRule, keyFiles []string) ([]objects.VerifyOptions, error) {
	var out []objects.VerifyOptions
	for _, k := range rule.TrustedKeys {
		if k.Algorithm != objects.AlgEd25519 {
			continue
		}
		file := filepath.Join(filepath.Dir(pol.Path), k.PublicKeyFile)
		raw, err := readPolicyKeyFile(filepath.Dir(pol.Path), k.PublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("policy key %s: %s: %w (public_key_file must be a regular file inside the policy's directory)", k.Name, file, err)
		}
		pub, err := objects.ParseEd25519PublicKey(raw)
		if err != nil {
			return nil, fmt.Errorf("policy key %s: %s: %w", k.Name, file, err)
		}
		if fp := objects.KeyFingerprint(pub); fp != k.Fingerprint {
			return nil, fmt.Errorf("policy key %s: %s has fingerprint %s, the policy says %s: %w", k.Name, file, fp, k.Fingerprint, ErrBadPolicy)
		}
		out = append(out, objects.VerifyOptions{PublicKey: pub})
	}
	for _, f := range keyFiles {
		raw, err := plumbing.ReadKeyFile(f)
		if err != nil {
			return nil, fmt.Errorf("key file: %w", err)
		}
		fp := objects.KeyFingerprint(raw)
		found := false
		for _, k := range rule.TrustedKeys {
			found = found || (k.Algorithm == objects.AlgHMACSHA256 && k.Fingerprint == fp)
		}
		if !found {
			return nil, fmt.Errorf("key file %s (fingerprint %s) is not an HMAC key the promotion trusts: %w", f, fp, ErrBadPolicy)
		}
		out = append(out, objects.VerifyOptions{HMACKey: raw})
	}
	return out, nil
}

// readPolicyKeyFile reads a policy's public key file rel under the
// policy's directory dir: a regular file (a FIFO would block promote
// forever), inside dir once links are resolved (the policy is reviewed;
// where its key file points must be too), at most MaxKeyFileBytes, with
// the key-file rule's trailing LF stripped (objects.ReadKeyFile).
func readPolicyKeyFile(dir, rel string) ([]byte, error) {
	b, err := fsutil.ReadFileInDir(dir, rel, objects.MaxKeyFileBytes)
	if err != nil {
		return nil, err
	}
	return objects.ReadKeyFile(bytes.NewReader(b))
}

// runAttestations returns the run's attestations, found through the
// derived catalog and read back through the store, each with the verdict
// of the first verifier that verifies it (else the most telling failure).
func runAttestations(ctx context.Context, r *plumbing.Repo, run objects.OID, verifiers []objects.VerifyOptions) ([]gate.PolicyAttestation, error) {
	cat, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	var out []gate.PolicyAttestation
	for _, a := range cat.AttestationsFor(run) {
		o, err := r.Objects().Get(ctx, a.ID)
		if errors.Is(err, objects.ErrNotFound) {
			continue // pruned since the catalog was built: a miss, not a fact
		}
		if err != nil {
			return nil, fmt.Errorf("attestation %s: %w", a.ID, err)
		}
		out = append(out, gate.PolicyAttestation{ID: a.ID.String(), Payload: o.Value, Verdict: bestVerdict(o.Value, verifiers)})
	}
	return out, nil
}

// bestVerdict verifies payload with each verifier in turn: the first OK
// verdict wins; otherwise a mismatch or error beats "no-key".
func bestVerdict(payload objects.Value, verifiers []objects.VerifyOptions) objects.Verdict {
	v := objects.VerifyAttestation(payload, objects.VerifyOptions{})
	for _, opt := range verifiers {
		w := objects.VerifyAttestation(payload, opt)
		if w.OK {
			return w
		}
		if v.State == objects.StateNoKey && w.State != objects.StateNoKey {
			v = w
		}
	}
	return v
}
