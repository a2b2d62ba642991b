package httpserve_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

func TestCapabilitiesAnonymous(t *testing.T) {
	for _, a := range []objects.Algo{objects.SHA256, objects.BLAKE3} {
		ts := startServer(t, httpserve.Config{ObjectFormat: a})
		status, body, h := ts.raw(t, "GET", "/v1/capabilities", "-", "", nil)
		want := `{"authentication":["bearer"],"filters":["depth","object_type"],"object_format":"` + wire.FormatFor(a) +
			`","pack_format":"TINEPACK3","protocol":"opentine-remote/1","resumable_upload":true,"roles":["reader","writer","admin"],` +
			`"tine":{"fetch_blocks":2,"frame":1,"frame_blocks":2,"have_closure":1,"max_chunk":16777216,"max_pack_objects":50000,"max_shallow":200000,"version":1}}`
		if status != 200 || body != want || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: capabilities = %d %s (cache %q), want 200 %s", a, status, body, h.Get("Cache-Control"), want)
		}
		// Without the extension, the document is OpenTine's fields alone.
		plain := startServer(t, httpserve.Config{ObjectFormat: a, HideTineExtension: true})
		_, body, _ = plain.raw(t, "GET", "/v1/capabilities", "-", "", nil)
		want = `{"authentication":["bearer"],"filters":["depth","object_type"],"object_format":"` + wire.FormatFor(a) +
			`","pack_format":"TINEPACK3","protocol":"opentine-remote/1","resumable_upload":true,"roles":["reader","writer","admin"]}`
		if body != want {
			t.Errorf("%s: capabilities without the extension = %s, want %s", a, body, want)
		}
		// Other methods on the path need the token, then are unknown.
		if status, body, _ := ts.raw(t, "POST", "/v1/capabilities", "-", "", nil); status != 401 || body != `{"error":"authentication failed"}` {
			t.Errorf("anonymous POST capabilities = %d %s", status, body)
		}
		if status, _, _ := ts.raw(t, "POST", "/v1/capabilities", "", "", nil); status != 404 {
			t.Errorf("POST capabilities = %d, want 404", status)
		}
	}
}

func TestAuthentication(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	for _, auth := range []string{"-", "Bearer wrong-token-of-enough-length", "Basic " + testToken, "Bearer "} {
		for _, path := range []string{"/v1/tenants/acme/refs", "/nowhere"} {
			status, body, h := ts.raw(t, "GET", path, auth, "", nil)
			if status != 401 || body != `{"error":"authentication failed"}` || h.Get("WWW-Authenticate") != "" {
				t.Errorf("GET %s with %q = %d %s", path, auth, status, body)
			}
		}
	}
	for _, auth := range []string{"bearer " + testToken, "BEARER   " + testToken + "  "} {
		if status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/refs", auth, "", nil); status != 200 || body != `{"refs":{}}` {
			t.Errorf("GET refs with %q = %d %s", auth, status, body)
		}
	}
	// The client reports a refused token as ErrUnauthorized.
	_, err := ts.client(t, httpclient.Options{Token: "not-the-token-at-all"}).Refs(context.Background())
	if !errors.Is(err, httpclient.ErrUnauthorized) || !strings.Contains(err.Error(), "401 authentication failed") {
		t.Errorf("client with a bad token: %v", err)
	}
}

func TestWeakTokenRefused(t *testing.T) {
	_, err := httpserve.New(httpserve.Config{Root: t.TempDir(), Tenant: "acme", Role: httpserve.RoleWriter, Token: []byte("short")})
	if !errors.Is(err, httpserve.ErrWeakToken) {
		t.Fatalf("New with a 5-byte token: %v", err)
	}
}

// TestFormatMismatchRefusedAtStart: a root whose tenant repository has
// another object format than the server would advertise does not start.
func TestFormatMismatchRefusedAtStart(t *testing.T) {
	root := t.TempDir()
	if _, _, err := plumbing.Init(filepath.Join(root, "tenants", "acme"), objects.SHA256); err != nil {
		t.Fatal(err)
	}
	_, err := httpserve.New(httpserve.Config{Root: root, Tenant: "acme", Token: []byte(testToken),
		Role: httpserve.RoleWriter, ObjectFormat: objects.BLAKE3})
	if !errors.Is(err, httpserve.ErrBadConfig) || !strings.Contains(err.Error(), "sha256 repository") {
		t.Fatalf("New over a sha256 tenant with blake3: %v", err)
	}
	s, err := httpserve.New(httpserve.Config{Root: root, Tenant: "acme", Token: []byte(testToken),
		Role: httpserve.RoleWriter, ObjectFormat: objects.SHA256})
	if err != nil {
		t.Fatalf("New with the tenant's own format: %v", err)
	}
	s.Close()
}

func TestTenantRules(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	for path, want := range map[string]int{
		"/v1/tenants/other/refs": 403, // valid name, not the identity's tenant
		"/v1/tenants/Acme/refs":  400,
		"/v1/tenants/con/refs":   400,
		"/v1/tenants/acme.":      400,
		"/v1/tenants/acme":       400, // no resource
		"/v1/tenants/acme/what":  404,
	} {
		status, body, _ := ts.raw(t, "GET", path, "", "", nil)
		if status != want {
			t.Errorf("GET %s = %d %s, want %d", path, status, body, want)
		}
	}
	c, err := httpclient.New(ts.http.URL+"/v1/tenants/other", httpclient.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Refs(context.Background()); !errors.Is(err, httpclient.ErrForbidden) {
		t.Errorf("client on another tenant: %v, want ErrForbidden", err)
	}
}

func TestRefCompareAndSwap(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 3)
	c := ts.client(t, httpclient.Options{})
	// A ref to an object the tenant does not hold is 404, before the CAS.
	if _, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run); !errors.Is(err, httpclient.ErrNotFound) {
		t.Fatalf("ref to a missing object: %v", err)
	}
	rec, err := c.Upload(ctx, src.frame(t, src.run))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Objects != 7 {
		t.Errorf("receipt objects = %d, want 7", rec.Objects)
	}
	ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run)
	if err != nil || !ok {
		t.Fatalf("create heads/main: %v %v", ok, err)
	}
	// Creating it again (expected_old null) is a conflict, never an overwrite.
	status, body, _ := ts.raw(t, "PUT", "/v1/tenants/acme/refs/heads%2Fmain", "", "application/json",
		[]byte(`{"expected_old":null,"new":"`+src.run.String()+`"}`))
	if status != 409 || body != `{"updated":false}` {
		t.Errorf("stale create = %d %s, want 409 {\"updated\":false}", status, body)
	}
	// A stale expected_old is a 409 too; the client reports false.
	if ok, err = c.UpdateRef(ctx, "heads/main", src.events[0], src.run); ok || err != nil {
		t.Errorf("stale expected_old = %v %v, want false nil", ok, err)
	}
	run2, _ := src.addRun(t, "b", 2)
	if _, err := c.Upload(ctx, src.frame(t, run2)); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", run2, run2); err != nil || ok {
		t.Errorf("stale CAS = %v %v, want false nil", ok, err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", src.run, run2); err != nil || !ok {
		t.Errorf("CAS = %v %v, want true", ok, err)
	}
	refs, err := c.Refs(ctx)
	if err != nil || refs["heads/main"] != run2 || len(refs) != 1 {
		t.Errorf("refs = %v %v", refs, err)
	}
	// Fixed statuses: a missing "new" is 404, an unknown key or a ref to
	// the wrong type 400.
	for body, want := range map[string]int{
		`{"expected_old":null}`:                        404,
		`{"new":"` + run2.String() + `","force":true}`: 400,
		`{"new":"` + src.events[0].String() + `"}`:     400,
		`[1]`: 400,
		`{"new":"run:sha256:` + strings.Repeat("0", 64): 400,
	} {
		status, got, _ := ts.raw(t, "PUT", "/v1/tenants/acme/refs/heads/other", "", "application/json", []byte(body))
		if status != want {
			t.Errorf("PUT %s = %d %s, want %d", body, status, got, want)
		}
	}
}

func TestRolesAndPromotions(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	src := newSource(t, objects.SHA256, "a", 2)
	w := startServer(t, httpserve.Config{Root: root})
	cw := w.client(t, httpclient.Options{})
	if _, err := cw.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	// A writer creates tags but may not retag or promote.
	if ok, err := cw.UpdateRef(ctx, "tags/v1", objects.OID{}, src.run); err != nil || !ok {
		t.Fatalf("writer creates a tag: %v %v", ok, err)
	}
	if _, err := cw.UpdateRef(ctx, "tags/v1", src.run, src.events[0]); !errors.Is(err, httpclient.ErrForbidden) {
		t.Errorf("writer retags: %v, want ErrForbidden", err)
	}
	if _, err := cw.UpdateRef(ctx, "promotions/prod", objects.OID{}, src.run); !errors.Is(err, httpclient.ErrForbidden) {
		t.Errorf("writer promotes: %v, want ErrForbidden", err)
	}
	// An admin without a release-policy guard still may not promote.
	a := startServer(t, httpserve.Config{Root: t.TempDir(), Role: httpserve.RoleAdmin})
	ca := a.client(t, httpclient.Options{})
	if _, err := ca.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.UpdateRef(ctx, "promotions/prod", objects.OID{}, src.run); !errors.Is(err, httpclient.ErrForbidden) {
		t.Errorf("promotion without a guard: %v, want ErrForbidden", err)
	}
	// A reader reads but never uploads or moves refs.
	r := startServer(t, httpserve.Config{Root: root, Role: httpserve.RoleReader})
	cr := r.client(t, httpclient.Options{})
	if refs, err := cr.Refs(ctx); err != nil || refs["tags/v1"] != src.run {
		t.Errorf("reader lists refs: %v %v", refs, err)
	}
	if _, err := cr.Upload(ctx, src.frame(t, src.run)); !errors.Is(err, httpclient.ErrForbidden) {
		t.Errorf("reader uploads: %v, want ErrForbidden", err)
	}
	if _, err := cr.UpdateRef(ctx, "heads/x", objects.OID{}, src.run); !errors.Is(err, httpclient.ErrForbidden) {
		t.Errorf("reader moves a ref: %v, want ErrForbidden", err)
	}
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	src := newSource(t, objects.SHA256, "a", 40)
	frame := src.frame(t, src.run)
	ts := startServer(t, httpserve.Config{MaxBodyBytes: int64(len(frame) - 1), MaxUploadBytes: int64(len(frame) - 1)})
	// A direct pack over the body cap is 400 (never 413).
	status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, frame)
	if status != 400 || body != `{"error":"invalid request"}` {
		t.Errorf("oversized pack = %d %s, want 400", status, body)
	}
	// So is a declaration over the upload cap, through the client.
	if _, err := ts.client(t, httpclient.Options{}).Upload(ctx, frame); !errors.Is(err, httpclient.ErrInvalid) {
		t.Errorf("oversized upload: %v, want ErrInvalid", err)
	}
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"size":10}`, 404},
		{`{"sha256":"` + strings.Repeat("a", 64) + `","size":0}`, 400},
		{`{"sha256":"` + strings.Repeat("a", 64) + `","size":true}`, 400},
		{`{"sha256":"` + strings.Repeat("A", 64) + `","size":10}`, 400},
		{`{"sha256":"` + strings.Repeat("a", 64) + `","size":10,"x":1}`, 400},
		{`{"sha256":"` + strings.Repeat("a", 64) + `","size":10}`, 201},
	} {
		if status, got, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", "application/json", []byte(c.body)); status != c.want {
			t.Errorf("declare %s = %d %s, want %d", c.body, status, got, c.want)
		}
	}
	// A JSON body past the structural token budget is refused unparsed.
	big := `{"wants":[` + strings.Repeat("[],", wire.MaxJSONTokens/2) + `[]]}`
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/fetch", "", "application/json", []byte(big)); status != 400 {
		t.Errorf("token bomb = %d, want 400", status)
	}
	// Upload state is private.
	dir := filepath.Join(ts.root, "uploads", "acme")
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("uploads dir: %v %v", st, err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	if len(ents) != 2 {
		t.Errorf("upload state files = %d, want 2 (.part and .json)", len(ents))
	}
}

func TestDirectPackInstall(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 2)
	status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, src.frame(t, src.run))
	if status != 201 || !strings.HasPrefix(body, `{"objects":5,"pack_id":"sha256:`) {
		t.Errorf("direct pack = %d %s", status, body)
	}
	// A pack that declares a boundary the tenant lacks is refused.
	other := newSource(t, objects.SHA256, "b", 3)
	objs := []*objects.Object{}
	o, _ := other.repo.Objects().Get(context.Background(), other.run)
	objs = append(objs, o)
	f, _, err := objects.WritePack(objs, sortedLinks(t, o))
	if err != nil {
		t.Fatal(err)
	}
	if status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, f); status != 400 {
		t.Errorf("unresolved boundary = %d %s, want 400", status, body)
	}
	// The wrong object format's pack does not even parse.
	b3 := newSource(t, objects.BLAKE3, "c", 1)
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, b3.frame(t, b3.run)); status != 400 {
		t.Errorf("blake3 pack on a sha256 server = %d, want 400", status)
	}
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, []byte("TINEPACK3\x00garbage")); status != http.StatusBadRequest {
		t.Errorf("garbage pack = %d, want 400", status)
	}
}

func sortedLinks(t *testing.T, o *objects.Object) []objects.OID {
	t.Helper()
	links, err := objects.Links(o)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[objects.OID]bool{}
	var out []objects.OID
	for _, l := range links {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	slices.SortFunc(out, objects.OID.Compare)
	return out
}
