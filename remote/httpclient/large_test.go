package httpclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/remotetest"
)

// TestLargeRunRoundTrip pushes and fetches a run whose closure (6,000
// events with their blobs: 12,001 objects) is over the protocol's 10,000
// objects per pack and per walk, against a server without tine's
// extension (as OpenTine's): the push goes up as two packs, and the
// fetch, refused whole by the server, comes down in depth windows; the
// clone ends complete, with no shallow boundary, and fsck-clean.
func TestLargeRunRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("12,001 objects")
	}
	ctx := context.Background()
	start := time.Now()
	defer func() { t.Logf("total %v", time.Since(start)) }()
	hs, _ := startServerWith(t, httpserve.Config{Root: t.TempDir(), HideTineExtension: true})
	local := newRepo(t)
	run := storeChain(t, local, 6000)
	t.Logf("stored %v", time.Since(start))
	tr, err := remote.Open(ctx, hs.URL+"/v1/tenants/acme", remote.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	set := closureOf(t, local, run)
	res, err := tr.Push(ctx, remote.PushRequest{Source: local.Objects(), Set: set,
		Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != 12001 || res.Packs != 2 || !res.Refs[0].Updated {
		t.Fatalf("push: %d objects in %d packs, ref %+v", res.Objects, res.Packs, res.Refs[0])
	}
	t.Logf("pushed %v", time.Since(start))
	clone := newRepo(t)
	sink, err := remote.NewRepoSink(clone)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("fetched %v", time.Since(start))
	if fr.Objects < 12001 {
		t.Errorf("fetch brought %d objects, want 12001", fr.Objects)
	}
	shallow, err := clone.Refs().ReadShallow()
	if err != nil || len(shallow) != 0 {
		t.Fatalf("clone shallow file: %d entries, %v", len(shallow), err)
	}
	for _, id := range set.IDs {
		if ok, err := clone.Objects().Has(ctx, id); err != nil || !ok {
			t.Fatalf("clone lacks %s", id)
		}
	}
	remotetest.Fsck(t, clone)
}
