package runs_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/plumbing"
)

// TestWritesKeepCatalogFresh: every porcelain write refreshes the derived
// catalog, so a query right after it needs no rebuild and sees the run.
func TestWritesKeepCatalogFresh(t *testing.T) {
	r := newRepo(t)
	now := fakeClock(time.Unix(1767225600, 0), time.Second)
	appendEvent(t, r, "heads/main", `{"kind":"human"}`, now)
	res := appendEvent(t, r, "heads/main", `{"kind":"human"}`, now)

	st, err := plumbing.OpenIndex(r).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.State != index.StateFresh {
		t.Fatalf("catalog state after a write = %q, want %q", st.State, index.StateFresh)
	}
	c, _, err := plumbing.OpenIndex(r).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := c.RunsByRef("heads/main")
	if len(got) != 1 || got[0].ID.String() != res.Run {
		t.Fatalf("RunsByRef(heads/main) = %+v, want run %s", got, res.Run)
	}
}
