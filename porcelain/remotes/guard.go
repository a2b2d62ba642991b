package remotes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/trust"
	"github.com/tinehq/tine/remote"
)

// PolicyGuard is the remote.RefGuard that lets promotions/<name> move on a
// repository only when that repository's release policy
// (tine-policy.json next to its .tine, as `tine promote` reads it) holds
// for the pushed run, checked by trust.CheckPromotion against the
// attestations the repository holds (pushed with the run). The file
// transport applies it in the destination repository; `tine serve`
// applies it to the tenant's repository. Other refs pass.
type PolicyGuard struct{}

// CheckRef judges one ref move. A refusal is a *remote.GuardRefusal: its
// error is the whole cause, its public words the unmet requirements or
// that the policy is absent or could not be applied, never the policy's
// path or a read error.
func (PolicyGuard) CheckRef(ctx context.Context, repo *plumbing.Repo, u remote.RefUpdate) error {
	name, ok := strings.CutPrefix(strings.TrimPrefix(u.Name, "refs/"), "promotions/")
	if !ok {
		return nil
	}
	res, err := trust.CheckPromotion(ctx, repo, trust.PromoteOptions{Target: u.New.String(), Name: name})
	if err == nil {
		return nil
	}
	return &remote.GuardRefusal{
		Public: policyRefusal(repo, u, res, err),
		Err:    fmt.Errorf("%w: the remote's release policy: %w", remote.ErrRefused, err),
	}
}

// policyRefusal says why the release policy refused u, in words a server
// may send its client.
func policyRefusal(repo *plumbing.Repo, u remote.RefUpdate, res *trust.PromoteResult, err error) string {
	if errors.Is(err, trust.ErrPolicyUnmet) && res != nil {
		unmet := res.Decision.Unmet()
		parts := make([]string, len(unmet))
		for i, r := range unmet {
			parts[i] = r.Requirement + " (" + r.Reason + ")"
		}
		return fmt.Sprintf("the release policy does not accept %s for %s: %d of %d requirements unmet: %s",
			u.New, u.Name, len(unmet), len(res.Decision.Requirements), strings.Join(parts, "; "))
	}
	if _, serr := os.Lstat(trust.DefaultPolicyPath(repo)); errors.Is(serr, fs.ErrNotExist) {
		return "the remote has no release policy (tine-policy.json), so no promotion passes there"
	}
	return "the remote's release policy could not be applied to " + u.Name + " (its operator finds why in the server's log)"
}
