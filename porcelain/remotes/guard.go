package remotes

import (
	"context"
	"fmt"
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

// CheckRef judges one ref move.
func (PolicyGuard) CheckRef(ctx context.Context, repo *plumbing.Repo, u remote.RefUpdate) error {
	name, ok := strings.CutPrefix(strings.TrimPrefix(u.Name, "refs/"), "promotions/")
	if !ok {
		return nil
	}
	if _, err := trust.CheckPromotion(ctx, repo, trust.PromoteOptions{Target: u.New.String(), Name: name}); err != nil {
		return fmt.Errorf("%w: the remote's release policy: %w", remote.ErrRefused, err)
	}
	return nil
}
