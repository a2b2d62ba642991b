package s3remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// lostReplyProxy is a real HTTP proxy in front of versitygw that delivers
// the first conditional PUT to a key containing match, then drops the
// client's connection instead of passing the answer on: the write took
// effect, but the client cannot know.
type lostReplyProxy struct {
	*httptest.Server
	puts atomic.Int64
}

func newLostReplyProxy(t *testing.T, srv *vgwtest.Server, match string) *lostReplyProxy {
	t.Helper()
	p := &lostReplyProxy{}
	rp := vgwProxy(t, srv)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if conditionalPut(r) && strings.Contains(r.URL.Path, match) && p.puts.Add(1) == 1 {
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			if rec.Code != http.StatusOK {
				t.Errorf("the delivered write got %d: %s", rec.Code, rec.Body)
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// TestLostReplyOfRefMove: a ref move whose reply is lost after the server
// applied it is retried; the retry's 412 is resolved by reading the ref
// back, which holds the pushed value, so the move is reported done (not a
// conflict), as with the AWS SDK's retryer before.
func TestLostReplyOfRefMove(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	proxy := newLostReplyProxy(t, srv, "/refs/heads/main")
	tr := transportVia(t, srv, proxy.URL, bucket)
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	first := putRun(t, r, "a", 2)
	res, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, first)
	if err != nil || !res.Refs[0].Updated || res.Refs[0].Err != nil {
		t.Fatalf("create whose reply was lost: %+v, %v", res, err)
	}
	if proxy.puts.Load() != 2 {
		t.Fatalf("%d conditional ref writes, want the lost one and its retry", proxy.puts.Load())
	}
	got, err := newRemote(t, srv, bucket, "c").ListRefs(ctx)
	if err != nil || len(got) != 1 || got[0].ID != first {
		t.Fatalf("refs: %v, %v", got, err)
	}
}

// newMuteProxy is a real HTTP proxy in front of versitygw that delivers
// every conditional PUT to a key containing match and answers none of
// them (it drops the client's connection): the first write took effect,
// every retry was refused by the server, and the client hears nothing.
func newMuteProxy(t *testing.T, srv *vgwtest.Server, match string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var puts atomic.Int64
	rp := vgwProxy(t, srv)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !conditionalPut(r) || !strings.Contains(r.URL.Path, match) {
			rp.ServeHTTP(w, r)
			return
		}
		puts.Add(1)
		rp.ServeHTTP(httptest.NewRecorder(), r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	t.Cleanup(p.Close)
	return p, &puts
}

// TestRefMoveWithEveryReplyLost: a ref move whose every try went
// unanswered (the first took effect, its retries were refused unseen)
// ends in a transport error; the ref is read back, holds the pushed
// value, and the move is reported done, not failed.
func TestRefMoveWithEveryReplyLost(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	proxy, puts := newMuteProxy(t, srv, "/refs/heads/main")
	tr := transportVia(t, srv, proxy.URL, bucket)
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	first := putRun(t, r, "a", 2)
	res, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, first)
	if err != nil || !res.Refs[0].Updated || res.Refs[0].Err != nil {
		t.Fatalf("create whose every reply was lost: %+v, %v", res, err)
	}
	if puts.Load() < 2 {
		t.Fatalf("%d conditional ref writes, want the first and its retries", puts.Load())
	}
	got, err := newRemote(t, srv, bucket, "c").ListRefs(ctx)
	if err != nil || len(got) != 1 || got[0].ID != first {
		t.Fatalf("refs: %v, %v", got, err)
	}
}
