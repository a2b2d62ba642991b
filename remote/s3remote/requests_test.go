package s3remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// requestLog is a real proxy in front of versitygw that records every
// request as "METHOD what", what being the key's kind (marker, pack, idx,
// ref, or list:PREFIX).
type requestLog struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newRequestLog(t *testing.T, srv *vgwtest.Server, bucket string) *requestLog {
	l := &requestLog{}
	rp := vgwProxy(t, srv)
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/"+bucket), "/c/")
		what := key
		switch {
		case r.URL.Query().Has("list-type"):
			what = "list:" + strings.TrimPrefix(r.URL.Query().Get("prefix"), "c/")
		case key == markerKey:
			what = "marker"
		case strings.HasSuffix(key, ".pack"):
			what = "pack"
		case strings.HasSuffix(key, ".idx"):
			what = "idx"
		}
		l.mu.Lock()
		l.log = append(l.log, r.Method+" "+what)
		l.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(l.Close)
	return l
}

func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.log
	l.log = nil
	return out
}

// TestPushRequests pins what a push costs, the figures the README gives:
// the push walk asks Missing object by object (as porcelain/remotes does),
// which must cost nothing after the first answer, and the upload is one
// pack and one index whatever the number of objects.
func TestPushRequests(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	reqs := newRequestLog(t, srv, bucket)
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	push := func(old, run objects.OID) {
		t.Helper()
		tr := transportVia(t, srv, reqs.URL, bucket)
		src, err := plumbing.RepoTransferSource(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		has := func(ctx context.Context, id objects.OID) (bool, error) {
			m, err := tr.Missing(ctx, []objects.OID{id})
			return len(m) == 0, err
		}
		set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: []objects.OID{run}, Depth: plumbing.NoDepth, Has: has})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Push(ctx, remote.PushRequest{Source: r.Objects(), Set: set, Updates: []remote.RefUpdate{{Name: "heads/main", Old: old, New: run}}})
		if err != nil || !res.Refs[0].Updated || res.Packs != 1 {
			t.Fatalf("push: %+v, %v", res, err)
		}
	}
	first := putRun(t, r, "first", 50)
	push(objects.OID{}, first)
	want := []string{
		"GET marker",               // Missing: no remote yet, so everything is missing
		"GET marker", "PUT marker", // Push creates the remote
		"GET list:packs/",
		"PUT pack", "PUT idx",
		"GET refs/heads/main", "GET list:refs/heads/main/", "PUT refs/heads/main",
	}
	if got := reqs.take(); !slices.Equal(got, want) {
		t.Fatalf("first push (101 objects):\n got %q\nwant %q", got, want)
	}
	second := putRun(t, r, "second", 50)
	push(first, second)
	want = []string{
		"GET marker", "GET list:packs/", "GET idx", // Missing, once
		"GET list:packs/", // Push: packs pushed meanwhile
		"PUT pack", "PUT idx",
		"GET refs/heads/main", "PUT refs/heads/main",
	}
	if got := reqs.take(); !slices.Equal(got, want) {
		t.Fatalf("second push:\n got %q\nwant %q", got, want)
	}
}
