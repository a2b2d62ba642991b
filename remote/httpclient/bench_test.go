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

// BenchmarkHTTPFetch10kEvents fetches a 10,000-event run (20,001 objects)
// from tine serve on a 127.0.0.1 listener into an empty repository,
// through the transport and the RepoSink: the client's reading, checking
// (frames, the fetch's scope, links) and storing, and the server's walk.
func BenchmarkHTTPFetch10kEvents(b *testing.B) {
	ctx := context.Background()
	s, err := httpserve.New(httpserve.Config{Root: b.TempDir(), Tenant: "acme", Token: []byte(testToken),
		Role: httpserve.RoleWriter, ObjectFormat: objects.BLAKE3})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s)
	b.Cleanup(func() { hs.Close(); s.Close() })
	hub := remotetest.NewRepo(b, objects.BLAKE3)
	run := hub.Run(hub.Chain("e", 10000, objects.OID{}))
	tr, err := remote.Open(ctx, hs.URL+"/v1/tenants/acme", remote.Options{Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	remotetest.MustMove(b, remotetest.Push(b, tr, hub, []remote.RefUpdate{{Name: "heads/main", New: run}}, run))
	tr.Close()
	for b.Loop() {
		b.StopTimer()
		local := remotetest.NewRepo(b, objects.BLAKE3)
		b.StartTimer()
		tr, err := remote.Open(ctx, hs.URL+"/v1/tenants/acme", remote.Options{Token: testToken})
		if err != nil {
			b.Fatal(err)
		}
		if res := remotetest.Fetch(b, tr, local, remote.NoDepth, run); res.Objects != 20001 {
			b.Fatalf("fetched %d objects, want 20001", res.Objects)
		}
		tr.Close()
	}
}
