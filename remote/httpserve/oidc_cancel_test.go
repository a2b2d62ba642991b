package httpserve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestOIDCKeySetFetchOutlivesCaller checks that a caller who hangs up
// while its token makes the server fetch the key set does not cancel that
// fetch: the fetch is rate-limited to once a minute, so a cancelled one
// let any anonymous caller lock every OIDC token out for a minute at a
// time by sending a made-up token and closing the connection.
func TestOIDCKeySetFetchOutlivesCaller(t *testing.T) {
	keys := newOIDCKeys(t)
	entered := make(chan struct{})
	var calls atomic.Int32
	js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			close(entered)
			// The first fetch answers only after a while, long after its
			// caller hung up, unless the server cancels it first.
			select {
			case <-r.Context().Done():
				return
			case <-time.After(3 * time.Second):
			}
		}
		w.Write(keys.jwks())
	}))
	defer js.Close()
	ts := startOIDC(t, keys, js.URL+"/jwks", func() time.Time { return oidcNow })
	tok := keys.mint(t, map[string]any{"alg": "RS256", "kid": "r1"}, goodClaims())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.http.URL+"/v1/tenants/acme/refs", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	cancel()
	<-done
	if status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+tok, "", nil); status != 200 {
		t.Fatalf("a good token after another caller hung up mid-fetch = %d %s, want 200", status, body)
	}
}
