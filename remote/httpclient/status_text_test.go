package httpclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tinehq/tine/remote/httpclient"
)

// TestStatusErrorText: the text a server puts in an error reply, or in a
// redirect's Location, reaches the user only when it is one short line of
// printable text; otherwise the status's own text stands, so a hostile
// server can neither drive the user's terminal nor flood it.
func TestStatusErrorText(t *testing.T) {
	for _, tc := range []struct {
		name, body, location string
		status               int
		want                 string
	}{
		{"fixed text", `{"error":"forbidden"}`, "", 403, ": 403 forbidden"},
		{"exception name", `{"error":"RuntimeError"}`, "", 500, ": 500 RuntimeError"},
		{"escape sequences", `{"error":"forbidden\u001b]2;owned\u0007\u001b[31m"}`, "", 403, ": 403 Forbidden"},
		{"line break", `{"error":"forbidden\nfake: line"}`, "", 403, ": 403 Forbidden"},
		{"bidi override", `{"error":"forbidden\u202e"}`, "", 403, ": 403 Forbidden"},
		{"huge", `{"error":"` + strings.Repeat("A", 500000) + `"}`, "", 403, ": 403 Forbidden"},
		{"empty", `{"error":""}`, "", 404, ": 404 Not Found"},
		{"redirect", "", "https://example.test/v1/tenants/acme/refs", 302, ": 302 redirect refused (to https://example.test/v1/tenants/acme/refs)"},
		{"redirect with bidi", "", "https://example.test/\u202etxt.exe", 302, ": 302 redirect refused"},
		{"huge redirect", "", "https://example.test/" + strings.Repeat("B", 5000), 302, ": 302 redirect refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.location != "" {
					w.Header().Set("Location", tc.location)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer hs.Close()
			c, err := httpclient.New(hs.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken, AllowInsecure: true})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Refs(context.Background())
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("error %.300q, want it to end %q", err, tc.want)
			}
		})
	}
}
