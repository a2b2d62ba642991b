package httpserve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/remote/wire"
)

// TestOIDCKeySetHeaderBound: the key set is read only from an answer whose
// header block fits wire.MaxReplyHeader; a larger one (net/http's own
// bound is 1 MiB) leaves the set unavailable and the token refused. The
// same set behind a plain header is accepted.
func TestOIDCKeySetHeaderBound(t *testing.T) {
	keys := newOIDCKeys(t)
	for _, tc := range []struct {
		name string
		pad  int
		want int
	}{{"plain header", 0, 200}, {"header over the bound", wire.MaxReplyHeader, 401}} {
		t.Run(tc.name, func(t *testing.T) {
			js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for i := 0; i*100 <= tc.pad && tc.pad > 0; i++ {
					w.Header().Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("p", 90))
				}
				w.Write(keys.jwks())
			}))
			defer js.Close()
			ts := startOIDC(t, keys, js.URL+"/jwks", func() time.Time { return oidcNow })
			tok := keys.mint(t, map[string]any{"alg": "RS256", "kid": "r1"}, goodClaims())
			if status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer "+tok, "", nil); status != tc.want {
				t.Fatalf("token = %d %s, want %d", status, body, tc.want)
			}
		})
	}
}
