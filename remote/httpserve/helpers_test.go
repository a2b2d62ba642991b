package httpserve_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

const testToken = "0123456789abcdef-test-token"

// testServer is a tine serve handler on a real 127.0.0.1 listener.
type testServer struct {
	srv  *httpserve.Server
	http *httptest.Server
	root string
}

func startServer(t testing.TB, cfg httpserve.Config) *testServer {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = t.TempDir()
	}
	if cfg.Tenant == "" {
		cfg.Tenant = "acme"
	}
	if cfg.Token == nil {
		cfg.Token = []byte(testToken)
	}
	if cfg.Role == "" {
		cfg.Role = httpserve.RoleWriter
	}
	if cfg.ObjectFormat == "" {
		cfg.ObjectFormat = objects.SHA256
	}
	s, err := httpserve.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { hs.Close(); s.Close() })
	return &testServer{srv: s, http: hs, root: cfg.Root}
}

func (ts *testServer) client(t testing.TB, opt httpclient.Options) *httpclient.Client {
	t.Helper()
	if opt.Token == "" {
		opt.Token = testToken
	}
	c, err := httpclient.New(ts.http.URL+"/v1/tenants/acme", opt)
	if err != nil {
		t.Fatalf("httpclient.New: %v", err)
	}
	return c
}

// rawHeader sends one request with the test token and extra headers.
func (ts *testServer) rawHeader(t testing.TB, method, path string, body []byte, header map[string]string) (int, string, http.Header) {
	t.Helper()
	return ts.send(t, method, path, "", "", body, header)
}

// raw sends one request with the test token (unless auth is given) and
// returns the status and body.
func (ts *testServer) raw(t testing.TB, method, path, auth, ctype string, body []byte) (int, string, http.Header) {
	t.Helper()
	return ts.send(t, method, path, auth, ctype, body, nil)
}

func (ts *testServer) send(t testing.TB, method, path, auth, ctype string, body []byte, header map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, ts.http.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth == "" {
		auth = "Bearer " + testToken
	}
	if auth != "-" {
		req.Header.Set("Authorization", auth)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// source is a local repository with one chained run of n events.
type source struct {
	repo   *plumbing.Repo
	run    objects.OID
	events []objects.OID
}

func newSource(t testing.TB, a objects.Algo, label string, n int) *source {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s := &source{repo: r}
	s.run, s.events = s.addRun(t, label, n)
	return s
}

func jsonObject(t testing.TB, a objects.Algo, ty objects.Type, text string) *objects.Object {
	t.Helper()
	v, err := objects.ParseJSON([]byte(text), objects.ParseOptions{})
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	o, err := objects.NewJSONObject(a, ty, 1, v)
	if err != nil {
		t.Fatalf("object %s: %v", text, err)
	}
	return o
}

func oidList(ids []objects.OID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = `"` + id.String() + `"`
	}
	return "[" + strings.Join(s, ",") + "]"
}

// addRun stores n chained events (each with an output blob) and a run.
func (s *source) addRun(t testing.TB, label string, n int) (objects.OID, []objects.OID) {
	t.Helper()
	ctx := context.Background()
	a := s.repo.Algo()
	var evs []objects.OID
	var objs []*objects.Object
	for i := 0; i < n; i++ {
		blob := objects.NewBlob(a, []byte(fmt.Sprintf("%s output %d", label, i)))
		ev := jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":%q,"output_blob":%q,"parent_ids":%s}`,
			fmt.Sprintf("%s-%d", label, i), blob.ID.String(), oidList(evs[max(0, len(evs)-1):])))
		objs = append(objs, blob, ev)
		evs = append(evs, ev.ID)
	}
	run := jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
		oidList(evs), oidList(evs[:1]), oidList(evs[len(evs)-1:])))
	objs = append(objs, run)
	if err := objects.PutAll(ctx, s.repo.Objects(), objs); err != nil {
		t.Fatal(err)
	}
	return run.ID, evs
}

// frame packs the closure of roots, leaving out what isShallow names.
func (s *source) frame(t testing.TB, roots ...objects.OID) []byte {
	t.Helper()
	objs, boundary, err := objects.PackClosure(context.Background(), s.repo.Objects(), roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := objects.WritePack(objs, boundary)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// appendEvent stores one event after the last of evs (with an output
// blob) and the run of evs plus it, returning the run and the event.
func (s *source) appendEvent(t testing.TB, evs []objects.OID, label string) (objects.OID, objects.OID) {
	t.Helper()
	a := s.repo.Algo()
	blob := objects.NewBlob(a, []byte(label+" output"))
	ev := jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":%q,"output_blob":%q,"parent_ids":%s}`,
		label, blob.ID.String(), oidList(evs[len(evs)-1:])))
	all := append(evs[:len(evs):len(evs)], ev.ID)
	run := jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
		oidList(all), oidList(all[:1]), oidList(all[len(all)-1:])))
	if err := objects.PutAll(context.Background(), s.repo.Objects(), []*objects.Object{blob, ev, run}); err != nil {
		t.Fatal(err)
	}
	return run.ID, ev.ID
}
