// Package runstest holds the test helpers the porcelain packages share:
// a fresh repository, a fake clock, short ways to append, parse and load,
// and a killed ref writer's leftovers.
package runstest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// NewRepo creates a repository in a temporary directory.
func NewRepo(t testing.TB) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// FakeClock returns a clock that starts at base and advances step per call.
func FakeClock(base time.Time, step time.Duration) func() time.Time {
	n := 0
	return func() time.Time {
		t := base.Add(time.Duration(n) * step)
		n++
		return t
	}
}

// AppendEvent appends an event given as JSON to ref.
func AppendEvent(t testing.TB, r *plumbing.Repo, ref, js string, now func() time.Time) *runs.AppendResult {
	t.Helper()
	res, err := runs.AppendEvent(t.Context(), r, runs.AppendEventOptions{Ref: ref, Data: []byte(js), Now: now})
	if err != nil {
		t.Fatalf("append %s: %v", js, err)
	}
	return res
}

// MustOID parses an oid.
func MustOID(t testing.TB, s string) objects.OID {
	t.Helper()
	id, err := objects.ParseOID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// LoadRef loads the run at a revision.
func LoadRef(t testing.TB, r *plumbing.Repo, rev string) *runs.Run {
	t.Helper()
	run, _, err := runs.ResolveRun(t.Context(), r, rev)
	if err != nil {
		t.Fatalf("resolve %s: %v", rev, err)
	}
	return run
}

// PlantDeadWriter leaves on ref what a tine writer SIGKILLed before its
// rename leaves (package refs, "Guards and liveness"): its read-only
// guard, flocked by nobody, and its staging file holding the value it
// meant to write.
func PlantDeadWriter(t testing.TB, r *plumbing.Repo, ref string, meant objects.OID) {
	t.Helper()
	base := filepath.Join(r.Root(), "refs", filepath.FromSlash(ref))
	if err := os.WriteFile(base+".lock", []byte("0123456789abcdef0123456789abcdef"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+"..lock", refs.EncodeRefFile(meant), 0o644); err != nil {
		t.Fatal(err)
	}
}

// NoLeftovers fails if any ref guard, staging file or journal is on disk.
func NoLeftovers(t testing.TB, r *plumbing.Repo) {
	t.Helper()
	if gs, err := r.Refs().StaleGuards(t.Context()); err != nil || len(gs) != 0 {
		t.Fatalf("left behind: %+v, %v", gs, err)
	}
}
