package httpclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/remotetest"
	"github.com/tinehq/tine/remote/wire"
)

// TestTineExtensionMovesLargeRun pushes and clones a run of 30,000 events
// (60,001 objects: its run object names 30,000 events, three times what a
// frame may name under the format's counts) between tine's client and tine
// serve, which agree on tine's extension: both sides end fsck-clean and the
// clone has no shallow boundary. The same tenant served without the
// extension (as OpenTine's server would) refuses the fetch with 400.
func TestTineExtensionMovesLargeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("60,001 objects")
	}
	if raceDetector {
		t.Skip("60,001 objects take too long under the race detector; the run without it covers this test")
	}
	ctx := context.Background()
	root := t.TempDir()
	hs, srv := startServerWith(t, httpserve.Config{Root: root})
	local := newRepo(t)
	run := storeChain(t, local, 30000)
	tr := openRemote(t, hs.URL)
	set := closureOf(t, local, run)
	res, err := tr.Push(ctx, remote.PushRequest{Source: local.Objects(), Set: set,
		Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != 60001 || !res.Refs[0].Updated {
		t.Fatalf("push: %d objects in %d packs, ref %+v", res.Objects, res.Packs, res.Refs[0])
	}
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
	if fr.Objects < 60001 {
		t.Errorf("fetch brought %d objects, want 60001", fr.Objects)
	}
	if shallow, err := clone.Refs().ReadShallow(); err != nil || len(shallow) != 0 {
		t.Fatalf("clone shallow file: %d entries, %v", len(shallow), err)
	}
	for _, id := range set.IDs {
		if ok, err := clone.Objects().Has(ctx, id); err != nil || !ok {
			t.Fatalf("clone lacks %s", id)
		}
	}
	remotetest.Fsck(t, clone)
	hs.Close()
	srv.Close()
	tenant, err := plumbing.Open(filepath.Join(root, "tenants", "acme"))
	if err != nil {
		t.Fatal(err)
	}
	remotetest.Fsck(t, tenant)
	tenant.Close()

	// The same tenant, served as OpenTine serves it: no extension, so
	// the run's frame cannot be written and the fetch is refused.
	hidden, _ := startServerWith(t, httpserve.Config{Root: root, HideTineExtension: true})
	plain := openRemote(t, hidden.URL)
	sink2, err := remote.NewRepoSink(newRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = plain.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink2)
	if !errors.Is(err, httpclient.ErrInvalid) {
		t.Fatalf("fetch from a server without the extension: %v, want a 400 refusal", err)
	}
}

// openRemote opens the tenant acme of the server at url.
func openRemote(t *testing.T, url string) remote.Transport {
	t.Helper()
	tr, err := remote.Open(context.Background(), url+"/v1/tenants/acme", remote.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// TestTineExtensionBounds posts pack frames of blobs directly: past the
// format's 10,000 objects a frame installs only with the extension's
// header, and past the server's extension count it is refused with 400
// even then. The capabilities advertise the server's counts.
func TestTineExtensionBounds(t *testing.T) {
	hs, _ := startServerWith(t, httpserve.Config{Root: t.TempDir(), TinePackObjects: 10100, TineShallow: 20000})
	c, err := httpclient.New(hs.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Capabilities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if caps.Tine == nil || *caps.Tine != (wire.TineCaps{FetchBlocks: 2, Frame: 1, FrameBlocks: 2, HaveClosure: 1, Version: 1, MaxChunk: wire.MaxRequestBytes, MaxPackObjects: 10100, MaxShallow: 20000}) {
		t.Fatalf("capabilities tine field %+v", caps.Tine)
	}
	post := func(n int, header bool) int {
		t.Helper()
		objs := make([]*objects.Object, n)
		for i := range objs {
			objs[i] = objects.NewBlob(objects.SHA256, []byte(fmt.Sprintf("blob %d of %d", i, n)))
		}
		frame, _, err := objects.WritePackLimits(objs, nil, objects.PackLevelFast, objects.PackLimits{Objects: n, Shallow: n})
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/v1/tenants/acme/packs", bytes.NewReader(frame))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", wire.PackContentType)
		if header {
			req.Header.Set(wire.HeaderTine, wire.TineHeaderValue)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(10001, false); got != http.StatusBadRequest {
		t.Errorf("10,001 objects without the header: %d, want 400", got)
	}
	if got := post(10101, true); got != http.StatusBadRequest {
		t.Errorf("10,101 objects past the extension's 10,100: %d, want 400", got)
	}
	if got := post(10100, true); got != http.StatusCreated {
		t.Errorf("10,100 objects with the header: %d, want 201", got)
	}
}

// TestTineHeaderOnlyWhenOffered pushes and fetches a small run through a
// recorder in front of tine serve: with the extension advertised, the
// fetch, the upload declaration, its PATCH and the ref update carry
// Tine-Extension: 1 (the update's asks for a refusal's reason);
// with it hidden (an OpenTine server), no request carries the header and
// the client keeps the format's counts.
func TestTineHeaderOnlyWhenOffered(t *testing.T) {
	for _, hide := range []bool{false, true} {
		ctx := context.Background()
		s, err := httpserve.New(httpserve.Config{Root: t.TempDir(), Tenant: "acme", Token: []byte(testToken),
			Role: httpserve.RoleWriter, ObjectFormat: objects.SHA256, HideTineExtension: hide})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		var mu sync.Mutex
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Get(wire.HeaderTine); v != "" {
				mu.Lock()
				seen[r.Method+" "+v]++
				mu.Unlock()
			}
			s.ServeHTTP(w, r)
		}))
		local := newRepo(t)
		run := storeChain(t, local, 20)
		tr := openRemote(t, hs.URL)
		set := closureOf(t, local, run)
		if _, err := tr.Push(ctx, remote.PushRequest{Source: local.Objects(), Set: set,
			Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}}); err != nil {
			t.Fatal(err)
		}
		sink, err := remote.NewRepoSink(newRepo(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink); err != nil {
			t.Fatal(err)
		}
		if err := sink.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		c := tr.(*httpclient.Transport).Client()
		mu.Lock()
		got := fmt.Sprint(seen)
		mu.Unlock()
		if hide {
			if got != "map[]" || c.Extended() || c.Limits() != objects.DefaultPackLimits {
				t.Errorf("OpenTine-like server: headers %s, extended %v, limits %+v", got, c.Extended(), c.Limits())
			}
		} else if got != "map[PATCH 1:1 POST 1:2 PUT 1:1]" || c.Limits() != (objects.PackLimits{Objects: wire.TineMaxPackObjects, Shallow: wire.TineMaxShallow}) {
			t.Errorf("tine serve: headers %s (want one fetch, one declaration, one PATCH, one ref update), limits %+v", got, c.Limits())
		}
		hs.Close()
		s.Close()
	}
}
