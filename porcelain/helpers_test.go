package porcelain_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain"
)

// newRepo creates a repository in a temporary directory.
func newRepo(t *testing.T) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// fakeClock returns a clock that starts at base and advances step per call.
func fakeClock(base time.Time, step time.Duration) func() time.Time {
	n := 0
	return func() time.Time {
		t := base.Add(time.Duration(n) * step)
		n++
		return t
	}
}

// appendEvent appends an event given as JSON to ref.
func appendEvent(t *testing.T, r *plumbing.Repo, ref, js string, now func() time.Time) *porcelain.AppendResult {
	t.Helper()
	res, err := porcelain.AppendEvent(context.Background(), r, porcelain.AppendEventOptions{Ref: ref, Data: []byte(js), Now: now})
	if err != nil {
		t.Fatalf("append %s: %v", js, err)
	}
	return res
}

// mustOID parses an oid.
func mustOID(t *testing.T, s string) objects.OID {
	t.Helper()
	id, err := objects.ParseOID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// loadRef loads the run at a revision.
func loadRef(t *testing.T, r *plumbing.Repo, rev string) *porcelain.Run {
	t.Helper()
	run, _, err := porcelain.ResolveRun(context.Background(), r, rev)
	if err != nil {
		t.Fatalf("resolve %s: %v", rev, err)
	}
	return run
}
