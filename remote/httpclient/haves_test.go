package httpclient_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/remotetest"
)

// TestClosureHavesSendOnlyWhatIsNew: a receiver holding a run of more
// than 10,000 objects (more than a fetch's haves list may name) fetches it
// again after a new evaluation, from tine serve with its extension. With
// its tracking ref's value as a closure root it receives the evaluation
// alone; listing haves literally (what the client did before), the
// extension's wide window walks the whole run and everything the list
// could not name comes again, though nothing there is new.
func TestClosureHavesSendOnlyWhatIsNew(t *testing.T) {
	if testing.Short() {
		t.Skip("10,201 objects")
	}
	ctx := context.Background()
	s, err := httpserve.New(httpserve.Config{Root: t.TempDir(), Tenant: "acme", Token: []byte(testToken),
		Role: httpserve.RoleWriter, ObjectFormat: objects.BLAKE3})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { hs.Close(); s.Close() })
	rem := remotetest.Remote{URL: hs.URL + "/v1/tenants/acme", Options: remote.Options{Token: testToken}}
	tr := remotetest.Open(t, rem)
	local := remotetest.NewRepo(t, objects.BLAKE3)
	run := local.Run(local.Chain("step", 5100, objects.OID{}))
	remotetest.MustMove(t, remotetest.Push(t, tr, local, []remote.RefUpdate{{Name: "heads/main", New: run}}, run))
	clone := remotetest.NewRepo(t, objects.BLAKE3)
	remotetest.Fetch(t, tr, clone, remote.NoDepth, run)
	eval := local.Evaluate(run, 0.9)
	remotetest.Push(t, tr, local, []remote.RefUpdate{{Name: "heads/main", Old: run, New: run}}, run)

	ids := clone.Closure(nil, remote.NoDepth, run).IDs
	if len(ids) <= 10000 {
		t.Fatalf("the clone holds %d objects of the run; the test needs more than a haves list", len(ids))
	}
	haves := ids[len(ids)-10000:]
	fetch := func(roots []objects.OID) *remote.FetchResult {
		sink, err := remote.NewRepoSink(clone.R)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth, Haves: haves, HaveRoots: roots}, sink)
		if err != nil {
			t.Fatal(err)
		}
		if err := sink.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := fetch([]objects.OID{run}); res.Objects != 1 || !clone.Has(eval) {
		t.Fatalf("closure haves: %d objects received (evaluation arrived: %v), want the evaluation alone", res.Objects, clone.Has(eval))
	}
	if res := fetch(nil); res.Objects < len(ids)-10000 {
		t.Fatalf("literal haves: %d objects received, want the %d the list missed again", res.Objects, len(ids)-10000)
	}
	clone.Fsck()
}
