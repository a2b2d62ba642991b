package httpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// refuseWith is a RefGuard refusing every update with err.
type refuseWith struct{ err error }

func (g refuseWith) CheckRef(context.Context, *plumbing.Repo, remote.RefUpdate) error { return g.err }

// TestRefusalReasons: a 403 to a request carrying the extension's header
// says why (wire.Refusal… and a message naming nothing of the server's
// files); without the header, or from a server hiding the extension, it
// is OpenTine's fixed body, byte for byte.
func TestRefusalReasons(t *testing.T) {
	ctx := context.Background()
	src := newSource(t, objects.SHA256, "a", 2)
	tine := map[string]string{wire.HeaderTine: wire.TineHeaderValue}
	put := []byte(`{"expected_old":null,"new":"` + src.run.String() + `"}`)
	long := strings.Repeat("é", wire.MaxRefusalMessage)
	retag := []byte(`{"expected_old":"` + src.run.String() + `","new":"` + src.events[0].String() + `"}`)
	for _, tc := range []struct {
		name   string
		cfg    httpserve.Config
		method string
		path   string // under /v1/tenants/
		body   []byte
		reason string
		msg    string // a prefix of the message
	}{
		{"writer promotes", httpserve.Config{}, "PUT", "acme/refs/promotions/prod", put, wire.RefusalRole,
			"the token's role (writer) may not move promotions/* (an admin token may; a writer token only where the server runs with --writer-promotes)"},
		{"writer retags", httpserve.Config{}, "PUT", "acme/refs/tags/v1", retag, wire.RefusalRole, "the token's role (writer) may not move an existing tag"},
		{"reader moves a ref", httpserve.Config{Role: httpserve.RoleReader}, "PUT", "acme/refs/heads/x", put, wire.RefusalRole,
			"the token's role (reader) may not move refs (a writer or admin token may)"},
		{"writer audits", httpserve.Config{}, "GET", "acme/audit/verify", nil, wire.RefusalRole, "the token's role (writer) may not verify the audit chain (an admin token may)"},
		{"other tenant", httpserve.Config{}, "GET", "other/refs", nil, wire.RefusalTenant, "the token is for tenant acme, not other"},
		{"no guard", httpserve.Config{Role: httpserve.RoleAdmin}, "PUT", "acme/refs/promotions/prod", put, wire.RefusalPolicy,
			"this server checks no release policy, so promotions/* do not move on it"},
		{"guard refusal", httpserve.Config{Role: httpserve.RoleAdmin, Guard: refuseWith{&remote.GuardRefusal{
			Public: "the release policy does not accept it: 1 of 1 requirements unmet",
			Err:    fmt.Errorf("%w: read /srv/secret/tine-policy.json", remote.ErrRefused)}}},
			"PUT", "acme/refs/promotions/prod", put, wire.RefusalPolicy, "the release policy does not accept it: 1 of 1 requirements unmet"},
		{"bare guard error", httpserve.Config{Role: httpserve.RoleAdmin, Guard: refuseWith{fmt.Errorf("%w: read /srv/secret/tine-policy.json", remote.ErrRefused)}},
			"PUT", "acme/refs/promotions/prod", put, wire.RefusalPolicy, "the server's ref guard refused promotions/prod -> " + src.run.String()},
		{"long public words", httpserve.Config{Role: httpserve.RoleAdmin, Guard: refuseWith{&remote.GuardRefusal{Public: long, Err: remote.ErrRefused}}},
			"PUT", "acme/refs/promotions/prod", put, wire.RefusalPolicy, "éé"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, tc.cfg)
			if tc.cfg.Role != httpserve.RoleReader {
				if _, err := ts.client(t, httpclient.Options{}).Upload(ctx, src.frame(t, src.run)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.name == "writer retags" { // a writer creates the tag it may not move
				if st, b, _ := ts.raw(t, "PUT", "/v1/tenants/"+tc.path, "", "application/json", put); st != 200 {
					t.Fatalf("create the tag: %d %s", st, b)
				}
			}
			path := "/v1/tenants/" + tc.path
			if status, got, _ := ts.send(t, tc.method, path, "", "application/json", tc.body, nil); status != 403 || got != `{"error":"forbidden"}` {
				t.Errorf("without the header: %d %s, want OpenTine's fixed 403", status, got)
			}
			status, got, _ := ts.send(t, tc.method, path, "", "application/json", tc.body, tine)
			var m map[string]string
			if err := json.Unmarshal([]byte(got), &m); err != nil || status != 403 || len(m) != 3 || m["error"] != "forbidden" || m["reason"] != tc.reason || !strings.HasPrefix(m["message"], tc.msg) {
				t.Fatalf("with the header: %d %s, want reason %q and a message starting %q", status, got, tc.reason, tc.msg)
			}
			if err := wire.CheckRefusal(m["reason"], m["message"]); err != nil || strings.Contains(got, "/srv/secret") {
				t.Errorf("the explanation %s: %v (or it names the server's files)", got, err)
			}
		})
	}
	// A server hiding the extension (as OpenTine's) ignores the header;
	// public words CheckRefusal would refuse (a line break from a policy's
	// text) are not sent at all.
	for name, cfg := range map[string]httpserve.Config{
		"hidden extension":               {HideTineExtension: true},
		"public words with a line break": {Role: httpserve.RoleAdmin, Guard: refuseWith{&remote.GuardRefusal{Public: "unmet:\nscore", Err: remote.ErrRefused}}},
	} {
		ts := startServer(t, cfg)
		if _, err := ts.client(t, httpclient.Options{}).Upload(ctx, src.frame(t, src.run)); err != nil {
			t.Fatal(err)
		}
		if status, got, _ := ts.send(t, "PUT", "/v1/tenants/acme/refs/promotions/prod", "", "application/json", put, tine); status != 403 || got != `{"error":"forbidden"}` {
			t.Errorf("%s: %d %s, want the fixed 403", name, status, got)
		}
	}
}
