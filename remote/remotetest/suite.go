// Package remotetest is the test suite every remote.Transport passes: the
// file transport in package remote, the HTTP client against `tine serve`,
// the S3 transport against a real S3 server. A transport's test calls Run
// with a Factory that makes a fresh, empty remote per case.
package remotetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// Remote is one fresh remote a case works against.
type Remote struct {
	// URL is what remote.Open receives.
	URL string
	// Options are passed to every remote.Open of this remote.
	Options remote.Options
	// Fsck, when set, checks the remote's own storage (the file transport
	// fscks the repository, `tine serve` its tenant repository). The suite
	// always also fetches everything into a fresh repository and fscks
	// that.
	Fsck func(t testing.TB)
	// Dir, when set, is the directory of the repository the remote's
	// side keeps (a path remote's repository, `tine serve`'s tenant
	// repository): cases that write into it behind the transport's back
	// run only then. An S3 remote has none (no server of its own checks
	// its refs).
	Dir string
}

// Factory makes a fresh, empty remote whose repositories use format a. An
// empty remote may report Description.Exists false until a first push.
type Factory func(t *testing.T, a objects.Algo) Remote

// Run runs every case of the suite against remotes made by newRemote.
func Run(t *testing.T, newRemote Factory) {
	cases := []struct {
		name string
		fn   func(*testing.T, Factory)
	}{
		{"RefsListing", testRefsListing},
		{"FetchClosureWithAssociations", testFetchAssociations},
		{"PushFetchRoundTrip", testRoundTrip},
		{"ConflictRefused", testConflict},
		{"ObjectFormatMismatch", testObjectFormat},
		{"ShallowAndDeepen", testShallow},
		{"ConcurrentPushers", testConcurrentPushers},
		{"HeldAssociations", testHeld},
		{"LateEventAssociations", testLateEventAssociations},
		{"RefNeedsStoredHistory", testStoredHistory},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newRemote) })
	}
}

// Open opens rem's transport, closed when the test ends.
func Open(t testing.TB, rem Remote) remote.Transport {
	t.Helper()
	tr, err := remote.Open(context.Background(), rem.URL, rem.Options)
	if err != nil {
		t.Fatalf("open %s: %v", rem.URL, err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// Push sends the closure of wants (minus what a Prober says the remote
// holds) and moves updates; it fails the test if the upload fails.
func Push(t testing.TB, tr remote.Transport, local *Repo, updates []remote.RefUpdate, wants ...objects.OID) *remote.PushResult {
	t.Helper()
	set := local.Closure(nil, remote.NoDepth, wants...)
	if p, ok := tr.(remote.Prober); ok {
		missing, err := p.Missing(context.Background(), set.IDs)
		if err != nil {
			t.Fatalf("missing: %v", err)
		}
		set = set.WithIDs(missing)
	}
	res, err := tr.Push(context.Background(), remote.PushRequest{Source: local.R.Objects(), Set: set, Updates: updates})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if len(res.Refs) != len(updates) {
		t.Fatalf("push reported %d ref results for %d updates", len(res.Refs), len(updates))
	}
	return res
}

// MustMove fails the test unless every ref result moved.
func MustMove(t testing.TB, res *remote.PushResult) {
	t.Helper()
	for _, r := range res.Refs {
		if !r.Updated || r.Err != nil {
			t.Fatalf("ref %s did not move: %v", r.Name, r.Err)
		}
	}
}

// Fetch fetches wants into local with depth and finishes the sink.
func Fetch(t testing.TB, tr remote.Transport, local *Repo, depth int, wants ...objects.OID) *remote.FetchResult {
	t.Helper()
	res, err := fetch(tr, local, depth, wants...)
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	return res
}

func fetch(tr remote.Transport, local *Repo, depth int, wants ...objects.OID) (*remote.FetchResult, error) {
	sink, err := remote.NewRepoSink(local.R)
	if err != nil {
		return nil, err
	}
	res, err := tr.Fetch(context.Background(), remote.FetchRequest{Wants: wants, Depth: depth}, sink)
	if err != nil {
		return nil, err
	}
	return res, sink.Finish(context.Background())
}

// RefMap lists the remote's refs as a map.
func RefMap(t testing.TB, tr remote.Transport) map[string]objects.OID {
	t.Helper()
	list, err := tr.ListRefs(context.Background())
	if err != nil {
		t.Fatalf("list refs: %v", err)
	}
	if !slices.IsSortedFunc(list, func(a, b remote.Ref) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	}) {
		t.Fatalf("refs are not sorted by name: %v", list)
	}
	m := map[string]objects.OID{}
	for _, r := range list {
		m[r.Name] = r.ID
	}
	return m
}

// checkRemote fscks the remote itself (when it can) and a fresh clone of
// every ref's full closure.
func checkRemote(t *testing.T, rem Remote, a objects.Algo) *Repo {
	t.Helper()
	if rem.Fsck != nil {
		rem.Fsck(t)
	}
	tr := Open(t, rem)
	clone := NewRepo(t, a)
	var wants []objects.OID
	for _, id := range RefMap(t, tr) {
		wants = append(wants, id)
	}
	if len(wants) > 0 {
		Fetch(t, tr, clone, remote.NoDepth, wants...)
	}
	clone.Fsck()
	return clone
}

// wantConflict fails unless r lost its CAS naming both values.
func wantConflict(t testing.TB, r remote.RefResult, actual objects.OID) {
	t.Helper()
	if r.Updated || !errors.Is(r.Err, remote.ErrConflict) {
		t.Fatalf("ref %s: updated=%v err=%v, want a conflict", r.Name, r.Updated, r.Err)
	}
	var ce *remote.ConflictError
	if !errors.As(r.Err, &ce) {
		t.Fatalf("ref %s: %T is not a *remote.ConflictError", r.Name, r.Err)
	}
	if ce.Expected != r.Old || ce.Actual != actual {
		t.Fatalf("conflict on %s names expected %s actual %s, want %s and %s", r.Name, ce.Expected, ce.Actual, r.Old, actual)
	}
}

// plumbingNoDepth keeps the suite's depth constant tied to plumbing's.
var _ = plumbing.NoDepth
