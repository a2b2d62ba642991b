package httpclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

const testToken = "0123456789abcdef-test-token"

// cutProxy forwards TCP connections to target and, once, closes the
// connection that carries the cut-th byte from client to server: a
// request cut mid-body, as a dropped network would.
type cutProxy struct {
	ln     net.Listener
	target string
	cut    int64
	sent   atomic.Int64
	fired  atomic.Bool
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

func newCutProxy(t *testing.T, target string, cut int64) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, cut: cut}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(c, s); c.Close() }()
		go func() { defer p.wg.Done(); p.upstream(c, s); s.Close() }()
	}
}

// upstream copies client bytes to the server until the cut point.
func (p *cutProxy) upstream(c, s net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			total := p.sent.Add(int64(n))
			if total >= p.cut && p.fired.CompareAndSwap(false, true) {
				keep := int64(n) - (total - p.cut)
				s.Write(buf[:keep])
				c.Close()
				return
			}
			if _, werr := s.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func newRepo(t *testing.T) *plumbing.Repo { return newRepoOf(t, objects.SHA256) }

// newRepoOf is newRepo with hash profile a.
func newRepoOf(t *testing.T, a objects.Algo) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// chain stores n events with incompressible output blobs and a run, and
// returns the run and its pack frame.
func chain(t *testing.T, r *plumbing.Repo, n int) (objects.OID, []byte) {
	t.Helper()
	run := storeChain(t, r, n)
	all, boundary, err := objects.PackClosure(context.Background(), r.Objects(), []objects.OID{run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	frame, _, err := objects.WritePack(all, boundary)
	if err != nil {
		t.Fatal(err)
	}
	return run, frame
}

// storeChain stores n events with incompressible output blobs and a run.
func storeChain(t *testing.T, r *plumbing.Repo, n int) objects.OID {
	t.Helper()
	ctx := context.Background()
	var objs []*objects.Object
	var evs []string
	for i := 0; i < n; i++ {
		blob := objects.NewBlob(r.Algo(), []byte(fmt.Sprintf("%x", objects.SHA256.Derive(objects.TypeBlob, 0, []byte{byte(i), byte(i >> 8)}).Digest)))
		parents := "[]"
		if len(evs) > 0 {
			parents = `["` + evs[len(evs)-1] + `"]`
		}
		v, err := objects.ParseJSON([]byte(fmt.Sprintf(`{"kind":"model","label":"e%d","output_blob":%q,"parent_ids":%s}`, i, blob.ID.String(), parents)), objects.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := objects.NewJSONObject(r.Algo(), objects.TypeEvent, 1, v)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, blob, ev)
		evs = append(evs, ev.ID.String())
	}
	v, err := objects.ParseJSON([]byte(fmt.Sprintf(`{"events":["%s"],"roots":[%q],"tips":[%q]}`, strings.Join(evs, `","`), evs[0], evs[len(evs)-1])), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := objects.NewJSONObject(r.Algo(), objects.TypeRun, 1, v)
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, run)
	if err := objects.PutAll(ctx, r.Objects(), objs); err != nil {
		t.Fatal(err)
	}
	return run.ID
}

func startServer(t *testing.T) (*httptest.Server, *httpserve.Server) {
	t.Helper()
	return startServerWith(t, httpserve.Config{Root: t.TempDir()})
}

// startServerWith is startServer with cfg's root and tine-extension
// settings.
func startServerWith(t *testing.T, cfg httpserve.Config) (*httptest.Server, *httpserve.Server) {
	t.Helper()
	s := newServer(t, cfg)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs, s
}

// newServer is tine serve of cfg for tenant acme, writable with
// testToken (SHA-256 unless cfg names a format), closed when t ends.
func newServer(t *testing.T, cfg httpserve.Config) *httpserve.Server {
	t.Helper()
	cfg.Tenant, cfg.Token, cfg.Role = "acme", []byte(testToken), httpserve.RoleWriter
	if cfg.ObjectFormat == "" {
		cfg.ObjectFormat = objects.SHA256
	}
	s, err := httpserve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// closureOf is the transfer set of run and all it reaches in r.
func closureOf(t *testing.T, r *plumbing.Repo, run objects.OID) *plumbing.TransferSet {
	t.Helper()
	ctx := context.Background()
	src, err := plumbing.RepoTransferSource(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: []objects.OID{run}, Depth: remote.NoDepth})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestUploadResumesAfterCut cuts the TCP connection in the middle of a
// PATCH: the client asks the server's offset with HEAD and resumes from
// it, and the pack arrives whole.
func TestUploadResumesAfterCut(t *testing.T) {
	ctx := context.Background()
	hs, _ := startServer(t)
	run, frame := chain(t, newRepo(t), 300)
	chunk := int64(len(frame) / 6)
	proxy := newCutProxy(t, strings.TrimPrefix(hs.URL, "http://"), int64(len(frame))/2)
	c, err := httpclient.New("http://"+proxy.ln.Addr().String()+"/v1/tenants/acme", httpclient.Options{Token: testToken, Chunk: chunk})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Upload(ctx, frame)
	if err != nil {
		t.Fatalf("upload through a cut connection: %v", err)
	}
	if !proxy.fired.Load() || rec.Recoveries != 1 {
		t.Fatalf("cut fired %v, recoveries %d: the test did not cut an upload", proxy.fired.Load(), rec.Recoveries)
	}
	if rec.Objects != 601 {
		t.Errorf("receipt objects = %d, want 601", rec.Objects)
	}
	// The pack is installed: a ref may now name its run.
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, run); err != nil || !ok {
		t.Errorf("ref after the resumed upload: %v %v", ok, err)
	}
}

// TestUploadLostState: with the server gone, every recovery fails and the
// client reports the failure instead of claiming success.
func TestUploadLostState(t *testing.T) {
	ctx := context.Background()
	hs, _ := startServer(t)
	_, frame := chain(t, newRepo(t), 50)
	proxy := newCutProxy(t, strings.TrimPrefix(hs.URL, "http://"), int64(len(frame))/2)
	c, err := httpclient.New("http://"+proxy.ln.Addr().String()+"/v1/tenants/acme", httpclient.Options{Token: testToken, Chunk: int64(len(frame) / 4)})
	if err != nil {
		t.Fatal(err)
	}
	hs.Close() // every request now fails at the transport
	if _, err := c.Upload(ctx, frame); err == nil || errors.Is(err, httpclient.ErrProtocol) {
		t.Fatalf("upload to a dead server: %v", err)
	}
}

func TestURLRules(t *testing.T) {
	for url, want := range map[string]error{
		"http://localhost:8787/v1/tenants/acme":    httpclient.ErrInsecureURL,
		"http://example.com/v1/tenants/acme":       httpclient.ErrInsecureURL,
		"http://10.0.0.1/v1/tenants/acme":          httpclient.ErrInsecureURL,
		"ftp://127.0.0.1/v1/tenants/acme":          httpclient.ErrBadURL,
		"http://127.0.0.1:8787":                    httpclient.ErrBadURL, // no tenant
		"http://127.0.0.1:8787/v1/tenants/Bad":     httpclient.ErrBadURL,
		"http://127.0.0.1:8787/v1/tenants/a%2Fb":   httpclient.ErrBadURL, // not tenant a
		"http://127.0.0.1:8787/v1/tenants/ac%6De":  httpclient.ErrBadURL, // the segment as written
		"https://user:pw@example.com/v1/tenants/a": httpclient.ErrBadURL,
		"http://127.0.0.1:8787/v1/tenants/acme":    nil,
		"http://127.0.0.2/v1/tenants/acme":         nil,
		"http://[::1]:8787/v1/tenants/acme":        nil,
		"https://example.com/prefix/v1/tenants/a":  nil,
		"https://localhost/v1/tenants/a":           nil,
	} {
		_, err := httpclient.New(url, httpclient.Options{Token: testToken})
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Errorf("New(%s) = %v, want %v", url, err, want)
		}
	}
	if _, err := httpclient.New("http://127.0.0.1/v1/tenants/a", httpclient.Options{}); !errors.Is(err, httpclient.ErrNoToken) {
		t.Errorf("no token: %v", err)
	}
	if _, err := httpclient.New("http://example.com/v1/tenants/a", httpclient.Options{Token: testToken, AllowInsecure: true}); err != nil {
		t.Errorf("AllowInsecure: %v", err)
	}
}

// TestNoRedirects: a 3xx is an error, the client never follows it (and so
// never sends its token elsewhere).
func TestNoRedirects(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(nil)
	defer target.Close()
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Location", target.URL+r.URL.Path)
		w.WriteHeader(307)
	}))
	defer redir.Close()
	c, err := httpclient.New(redir.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Refs(context.Background())
	if err == nil || !strings.Contains(err.Error(), "redirect refused") || hits.Load() != 1 {
		t.Errorf("redirect: %v (hits %d)", err, hits.Load())
	}
}
