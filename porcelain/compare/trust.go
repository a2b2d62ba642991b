package compare

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/trust"
)

// Trust decides which evaluation and gate attestations the runs table
// counts.
type Trust interface {
	// Trusted reports whether attestation a counts; g reads it back when
	// the rule needs the object (signatures).
	Trusted(ctx context.Context, g objects.Getter, a index.Attestation) (bool, error)
	// Describe names the rule for the table's header and JSON.
	Describe() string
}

// TrustAll counts every evaluation and gate attestation, as `tine
// candidates` does, or only those by signer when it is not "".
func TrustAll(signer string) Trust { return allTrust{signer} }

type allTrust struct{ signer string }

func (t allTrust) Trusted(_ context.Context, _ objects.Getter, a index.Attestation) (bool, error) {
	return t.signer == "" || a.Signer == t.signer, nil
}

func (t allTrust) Describe() string {
	if t.signer == "" {
		return "every evaluation (as tine candidates)"
	}
	return "evaluations by " + t.signer
}

// TrustPolicy counts the attestations a release policy's promotion trusts
// (what `tine promote` counts): each is read back through g, which
// re-verifies it, and its signature is checked against the rule's keys.
func TrustPolicy(pt *trust.PolicyTrust) Trust { return policyTrust{pt} }

type policyTrust struct{ pt *trust.PolicyTrust }

func (t policyTrust) Trusted(ctx context.Context, g objects.Getter, a index.Attestation) (bool, error) {
	o, err := g.Get(ctx, a.ID)
	if errors.Is(err, objects.ErrNotFound) {
		return false, nil // pruned since the catalog was built: a miss
	}
	if err != nil {
		return false, fmt.Errorf("runs: attestation %s: %w", a.ID, err)
	}
	ok, _ := t.pt.Trusted(o.Value)
	return ok, nil
}

func (t policyTrust) Describe() string {
	return "trusted by promotion " + t.pt.Rule.Name + " of " + t.pt.Policy.Path
}
