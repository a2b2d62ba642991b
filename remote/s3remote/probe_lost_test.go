package s3remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// newLostWinProxy is a real HTTP proxy in front of versitygw that passes
// every request on, but drops the client's connection instead of
// delivering the answer of the nth successful conditional PUT to a probe
// key: that write took effect, and its writer cannot know.
func newLostWinProxy(t *testing.T, srv *vgwtest.Server, nth int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var wins atomic.Int64
	rp := vgwProxy(t, srv)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !conditionalPut(r) || !strings.Contains(r.URL.Path, "/"+probeDir) {
			rp.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK && wins.Add(1) == nth {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(p.Close)
	return p, &wins
}

// TestProbeLostReplyOfWinner: the winner of a probe round whose answer is
// lost retries, and its retry gets 412 like every loser; the probe reads
// the scratch key back, finds the winner's bytes there, and accepts the
// server, in the create round and in the replace round, rather than
// saying the server does not enforce conditional writes.
func TestProbeLostReplyOfWinner(t *testing.T) {
	srv := vgwtest.Start(t)
	for _, tc := range []struct {
		name string
		nth  int64
	}{{"create", 1}, {"replace", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			bucket := srv.Bucket(t)
			proxy, wins := newLostWinProxy(t, srv, tc.nth)
			tr := transportVia(t, srv, proxy.URL, bucket)
			if err := tr.Probe(context.Background()); err != nil {
				t.Fatalf("probe refused a server that enforces conditional writes: %v", err)
			}
			if wins.Load() != 2 {
				t.Fatalf("%d conditional writes took effect, want one per round", wins.Load())
			}
		})
	}
}
