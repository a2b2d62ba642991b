package runs_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// catalogState is the catalog's state (index.Index.Status).
func catalogState(t *testing.T, r *plumbing.Repo) string {
	t.Helper()
	st, err := plumbing.OpenIndex(r).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.State
}

// TestAppendsLeaveCatalogToReaders: a run append (append, record, import)
// does not rewrite the derived catalog, whose update costs every indexed
// event; the next query finds it stale, updates it incrementally, and sees
// the new run. Writes that are not appends (a fork) still refresh it.
func TestAppendsLeaveCatalogToReaders(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	now := fakeClock(time.Unix(1767225600, 0), time.Second)
	appendEvent(t, r, "heads/main", `{"kind":"human"}`, now)
	res := appendEvent(t, r, "heads/main", `{"kind":"human"}`, now)
	if got := catalogState(t, r); got != index.StateMissing {
		t.Fatalf("catalog after the first appends is %q, want %q (not written)", got, index.StateMissing)
	}
	c, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RunsByRef("heads/main"); len(got) != 1 || got[0].ID.String() != res.Run {
		t.Fatalf("RunsByRef(heads/main) = %+v, want run %s", got, res.Run)
	}
	if got := catalogState(t, r); got != index.StateFresh {
		t.Fatalf("catalog after a query is %q, want %q", got, index.StateFresh)
	}

	rec, err := runs.Record(ctx, r, runs.RecordOptions{Argv: []string{"true"}, Env: []string{}, NoCapture: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := catalogState(t, r); got != index.StateStale {
		t.Fatalf("catalog after record is %q, want %q", got, index.StateStale)
	}
	c, rep, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Action != index.ActionUpdated {
		t.Fatalf("query after record: catalog %s (%s), want an incremental update", rep.Action, rep.Reason)
	}
	if got := c.RunsByRef("heads/main"); len(got) != 1 || got[0].ID.String() != rec.Run {
		t.Fatalf("RunsByRef(heads/main) after record = %+v, want run %s", got, rec.Run)
	}

	if _, err := runs.Fork(ctx, r, runs.ForkOptions{Source: "heads/main", From: "heads/main", Ref: "experiments/f"}); err != nil {
		t.Fatal(err)
	}
	if got := catalogState(t, r); got != index.StateFresh {
		t.Fatalf("catalog after a fork is %q, want %q", got, index.StateFresh)
	}
}
