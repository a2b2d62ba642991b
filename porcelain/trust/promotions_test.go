package trust_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/trust"
	"github.com/tinehq/tine/refs"
)

// fakeHistory is a RefHistory with no repository behind it: Promotions
// needs only a ref listing and reflogs.
type fakeHistory struct {
	refs   map[string]objects.OID
	reflog map[string][]refs.ReflogEntry
}

func (f fakeHistory) List(_ context.Context, prefix string, fn func(string, objects.OID) error) error {
	for name, id := range f.refs {
		if strings.HasPrefix(name, prefix) {
			if err := fn(name, id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f fakeHistory) Reflog(name string) ([]refs.ReflogEntry, error) { return f.reflog[name], nil }

// TestPromotionsOverRefHistory checks Promotions reads through the narrow
// RefHistory it declares: the promotion, its run and its reflog row split
// into who and why, newest first.
func TestPromotionsOverRefHistory(t *testing.T) {
	run := mustOID(t, "run:blake3:"+strings.Repeat("ab", 32))
	h := fakeHistory{
		refs: map[string]objects.OID{"promotions/prod": run, "heads/main": run},
		reflog: map[string][]refs.ReflogEntry{"promotions/prod": {
			{Actor: "ci: first", New: run, Ref: "promotions/prod", TimeNS: 1e9},
			{Actor: "ci: second", New: run, Old: run, Ref: "promotions/prod", TimeNS: 2e9},
		}},
	}
	res, err := trust.Promotions(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Promotions) != 1 || res.Promotions[0].Name != "prod" || res.Promotions[0].Run != run.String() {
		t.Fatalf("promotions %+v, want only prod at %s", res.Promotions, run)
	}
	hist := res.Promotions[0].History
	if len(hist) != 2 || hist[0].Why != "second" || hist[1].Who != "ci" {
		t.Fatalf("history %+v, want newest first split into who and why", hist)
	}
}
