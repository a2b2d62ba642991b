package s3remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// conflictProxy is a real HTTP proxy in front of versitygw that answers the
// first `fail` conditional PUTs to keys containing `match` with 409
// ConditionalRequestConflict (what S3 says while another conditional write
// to the key is in flight) and forwards everything else.
type conflictProxy struct {
	*httptest.Server
	match     string
	left      atomic.Int64
	refused   atomic.Int64
	forwarded atomic.Int64
}

func newConflictProxy(t *testing.T, srv *vgwtest.Server, match string, fail int64) *conflictProxy {
	t.Helper()
	p := &conflictProxy{match: match}
	p.left.Store(fail)
	rp := vgwProxy(t, srv)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if conditionalPut(r) && strings.Contains(r.URL.Path, p.match) {
			if p.left.Add(-1) >= 0 {
				p.refused.Add(1)
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusConflict)
				w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` +
					`<Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is currently in progress against this resource. Please try again.</Message></Error>`))
				return
			}
			p.forwarded.Add(1)
		}
		// The SigV4 signature covers the Host the client used (this
		// proxy's), which the reverse proxy keeps.
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// transportVia returns a Transport reaching bucket through endpoint.
func transportVia(t *testing.T, srv *vgwtest.Server, endpoint, bucket string) *Transport {
	t.Helper()
	cfg, err := ConfigFromEnv("s3://"+bucket+"/c", endpoint, srv.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, remote.Options{})
}

// TestConditionalConflictRetried: 409 ConditionalRequestConflict on a ref
// move is retried with backoff until the server decides; the ref then
// moves once, as asked.
func TestConditionalConflictRetried(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	proxy := newConflictProxy(t, srv, "/refs/heads/main", 3)
	tr := transportVia(t, srv, proxy.URL, bucket)
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 2)
	res, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run)
	if err != nil || !res.Refs[0].Updated || res.Refs[0].Err != nil {
		t.Fatalf("push through three 409s: %+v, %v", res, err)
	}
	if proxy.refused.Load() != 3 || proxy.forwarded.Load() != 1 {
		t.Fatalf("proxy refused %d and forwarded %d conditional ref writes; want 3 and 1", proxy.refused.Load(), proxy.forwarded.Load())
	}
	got, err := newRemote(t, srv, bucket, "c").ListRefs(ctx)
	if err != nil || len(got) != 1 || got[0].ID != run {
		t.Fatalf("refs after the retried move: %v, %v", got, err)
	}
}

// TestConditionalConflictPersistent: a 409 that never clears ends the
// move after conflictRetries tries with ErrUnavailable, and the ref is
// untouched (not reported as a lost CAS: nobody won).
func TestConditionalConflictPersistent(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	proxy := newConflictProxy(t, srv, "/refs/heads/main", 1<<30)
	tr := transportVia(t, srv, proxy.URL, bucket)
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 1)
	res, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run)
	if err != nil {
		t.Fatal(err)
	}
	rerr := res.Refs[0].Err
	if res.Refs[0].Updated || !errors.Is(rerr, ErrUnavailable) || errors.Is(rerr, remote.ErrConflict) {
		t.Fatalf("ref result under a persistent 409: %+v", res.Refs[0])
	}
	if proxy.refused.Load() != conflictRetries {
		t.Fatalf("%d tries, want %d", proxy.refused.Load(), conflictRetries)
	}
	if got, err := newRemote(t, srv, bucket, "c").ListRefs(ctx); err != nil || len(got) != 0 {
		t.Fatalf("refs: %v, %v", got, err)
	}
}
