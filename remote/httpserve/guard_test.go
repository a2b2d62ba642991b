package httpserve_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

// allowOnly is a RefGuard that lets promotions move only to one run, and
// records what it was asked.
type allowOnly struct {
	run   objects.OID
	asked []remote.RefUpdate
}

func (g *allowOnly) CheckRef(_ context.Context, r *plumbing.Repo, u remote.RefUpdate) error {
	g.asked = append(g.asked, u)
	if ok, err := r.Objects().Has(context.Background(), u.New); err != nil || !ok {
		return fmt.Errorf("guard: %s not in the tenant repository", u.New)
	}
	if u.New != g.run {
		return fmt.Errorf("%w: policy unmet for %s", remote.ErrRefused, u.New)
	}
	return nil
}

// TestPromotionsGoThroughGuard: promotions/* moves only when the guard
// (the server-side release policy) allows it; a refusal is 403 and moves
// nothing; the CAS still applies after the guard.
func TestPromotionsGoThroughGuard(t *testing.T) {
	ctx := context.Background()
	src := newSource(t, objects.SHA256, "a", 2)
	bad, _ := src.addRun(t, "b", 1)
	g := &allowOnly{run: src.run}
	ts := startServer(t, httpserve.Config{Role: httpserve.RoleAdmin, Guard: g})
	c := ts.client(t, httpclient.Options{})
	for _, root := range []objects.OID{src.run, bad} {
		if _, err := c.Upload(ctx, src.frame(t, root)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.UpdateRef(ctx, "promotions/prod", objects.OID{}, bad); !errors.Is(err, httpclient.ErrForbidden) {
		t.Fatalf("promotion the policy refuses: %v, want ErrForbidden", err)
	}
	if refs, _ := c.Refs(ctx); len(refs) != 0 {
		t.Fatalf("a refused promotion moved a ref: %v", refs)
	}
	if ok, err := c.UpdateRef(ctx, "promotions/prod", objects.OID{}, src.run); err != nil || !ok {
		t.Fatalf("promotion the policy allows: %v %v", ok, err)
	}
	if ok, err := c.UpdateRef(ctx, "promotions/prod", objects.OID{}, src.run); err != nil || ok {
		t.Fatalf("stale promotion: %v %v, want a conflict", ok, err)
	}
	if len(g.asked) != 3 || g.asked[1].Name != "promotions/prod" || g.asked[1].New != src.run {
		t.Errorf("guard was asked %v", g.asked)
	}
}
