package trust

import (
	"fmt"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// PolicyTrust is the trust rule of one promotion of a release policy,
// loaded once so other verbs (the runs table) count exactly the
// attestations `tine promote` would count.
type PolicyTrust struct {
	Policy    *Policy
	Rule      *gate.PromotionRule
	verifiers []objects.VerifyOptions
}

// LoadPolicyTrust loads the policy file ("" means DefaultPolicyPath), its
// rule for promotion and the keys that rule trusts (Ed25519 public key
// files from the policy, HMAC secrets from keyFiles), as Promote does.
func LoadPolicyTrust(r *plumbing.Repo, policyFile, promotion string, keyFiles []string) (*PolicyTrust, error) {
	path := policyFile
	if path == "" {
		path = DefaultPolicyPath(r)
	}
	pol, err := LoadPolicy(path, r.Algo())
	if err != nil {
		return nil, err
	}
	rule := pol.Rules[promotion]
	if rule == nil {
		return nil, fmt.Errorf("%s names no promotion %q: %w", path, promotion, ErrBadPolicy)
	}
	verifiers, err := policyVerifiers(pol, rule, keyFiles)
	if err != nil {
		return nil, fmt.Errorf("promotion %s: %w", promotion, err)
	}
	return &PolicyTrust{Policy: pol, Rule: rule, verifiers: verifiers}, nil
}

// Trusted reports whether the attestation payload counts under the rule
// (gate.PromotionRule.Trust after verifying its signature with the rule's
// keys), and if not why.
func (p *PolicyTrust) Trusted(payload objects.Value) (bool, string) {
	return p.Rule.Trust(gate.PolicyAttestation{Payload: payload, Verdict: bestVerdict(payload, p.verifiers)})
}
