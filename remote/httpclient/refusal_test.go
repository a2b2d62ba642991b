package httpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/wire"
)

// refusingServer answers the capabilities (with tine's extension when
// tine is set) and every ref update with 403 and body; it records whether
// the update carried the extension's header.
func refusingServer(t *testing.T, tine bool, body string, sawHeader *bool) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", wire.JSONContentType)
		if r.URL.Path == "/v1/capabilities" {
			caps := map[string]any{"object_format": wire.FormatFor(objects.SHA256), "pack_format": wire.PackFormat, "protocol": wire.Protocol}
			if tine {
				caps["tine"] = wire.TineCaps{Version: wire.TineVersion, MaxPackObjects: wire.TineMaxPackObjects, MaxShallow: wire.TineMaxShallow}
			}
			_ = json.NewEncoder(w).Encode(caps)
			return
		}
		*sawHeader = r.Header.Get(wire.HeaderTine) == wire.TineHeaderValue
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/v1/tenants/acme"
}

// TestPushRefusalReason: a 403 on a promotion says why when the server
// does (tine serve's reason and message, asked for by the extension's
// header); a bare 403 (OpenTine's server, an older tine serve) or an
// explanation that fails wire.CheckRefusal is reported as the ambiguous
// refusal it is, naming both possible causes.
func TestPushRefusalReason(t *testing.T) {
	ctx := context.Background()
	run := objects.OID{Type: objects.TypeRun, Algo: objects.SHA256, Digest: [32]byte{1}}
	ambiguous := "403 forbidden (the remote did not say why: its release policy does not hold for " + run.String() + ", or the token's role may not promote)"
	explained := func(reason, message string) string {
		b, _ := json.Marshal(map[string]string{"error": "forbidden", "reason": reason, "message": message})
		return string(b)
	}
	for _, tc := range []struct {
		name, body string
		tine       bool
		want       string
	}{
		{"role", explained("role", "the token's role (writer) may not move promotions/*"), true, "403 forbidden (role): the token's role (writer) may not move promotions/*"},
		{"policy", explained("policy", "the release policy does not accept it: 1 of 1 requirements unmet"), true, "403 forbidden (policy): the release policy does not accept it: 1 of 1 requirements unmet"},
		{"bare", `{"error":"forbidden"}`, true, ambiguous},
		{"opentine", `{"error":"forbidden"}`, false, ambiguous},
		{"reason not a token", explained("Role!", "x"), true, ambiguous},
		{"control in message", explained("role", "a\x1b[2Jb"), true, ambiguous},
		{"bidi in message", explained("role", "a\u202eb"), true, ambiguous},
		{"message too long", explained("role", strings.Repeat("a", wire.MaxRefusalMessage+1)), true, ambiguous},
		{"message not a string", `{"error":"forbidden","message":7,"reason":"role"}`, true, ambiguous},
		{"no message", `{"error":"forbidden","reason":"role"}`, true, ambiguous},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sawHeader bool
			c, err := httpclient.New(refusingServer(t, tc.tine, tc.body, &sawHeader), httpclient.Options{Token: testToken, AllowInsecure: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := httpclient.TransportOf(c).Push(ctx, remote.PushRequest{Updates: []remote.RefUpdate{{Name: "promotions/prod", New: run}}})
			if err != nil {
				t.Fatal(err)
			}
			rr := res.Refs[0]
			if rr.Updated || rr.Err == nil || !strings.HasSuffix(rr.Err.Error(), tc.want) {
				t.Errorf("refusal: %v, want it to end %q", rr.Err, tc.want)
			}
			if sawHeader != tc.tine {
				t.Errorf("the update carried the extension's header: %v, want %v (only to a server offering it)", sawHeader, tc.tine)
			}
		})
	}
}
