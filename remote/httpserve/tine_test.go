package httpserve_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// TestTineHeaderVersion refuses a fetch whose Tine-Extension header names
// a version this server does not speak (400, nothing walked), and accepts
// the one it advertises.
func TestTineHeaderVersion(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	body := []byte(`{"wants":[],"haves":[],"depth":null,"object_types":[]}`)
	status, text, _ := ts.send(t, "POST", "/v1/tenants/acme/fetch", "", wire.JSONContentType, body, map[string]string{wire.HeaderTine: "2"})
	if status != 400 || text != `{"error":"invalid request"}` {
		t.Errorf("fetch with %s: 2 = %d %s, want 400", wire.HeaderTine, status, text)
	}
	if status, _, _ := ts.send(t, "POST", "/v1/tenants/acme/fetch", "", wire.JSONContentType, body, map[string]string{wire.HeaderTine: "1"}); status != 200 {
		t.Errorf("fetch with %s: 1 = %d, want 200", wire.HeaderTine, status)
	}
}

// TestTineCountsBounded refuses a server whose extension counts fall below
// the format's or above the extension's ceilings: a larger cap, never none.
func TestTineCountsBounded(t *testing.T) {
	for _, c := range []httpserve.Config{
		{TinePackObjects: objects.MaxPackObjects - 1},
		{TinePackObjects: wire.TineMaxPackObjects + 1},
		{TineShallow: wire.TineMaxShallow + 1},
	} {
		c.Root, c.Tenant, c.Token, c.Role = t.TempDir(), "acme", []byte(testToken), httpserve.RoleWriter
		if _, err := httpserve.New(c); !errors.Is(err, httpserve.ErrBadConfig) {
			t.Errorf("New(objects %d, shallow %d) = %v, want ErrBadConfig", c.TinePackObjects, c.TineShallow, err)
		}
	}
}

// TestFrameHeader: a fetch gets tine's binary frame only with Tine-Frame:
// 1, or 2 for version 2 (another value is 400, and so is 2 on a server
// reading version 2 in uploads only; Tine-Frame-Codec may only say none),
// and an upload is read as one only when its
// completing PATCH carries the header: the same binary frame PATCHed
// without it is read as TINEPACK3 and refused, and nothing is stored.
func TestFrameHeader(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "frame", 5)
	body := []byte(`{"wants":[],"haves":[],"depth":null,"object_types":[]}`)
	for _, c := range []struct {
		header map[string]string
		status int
		ctype  string
	}{
		{nil, 200, wire.PackContentType},
		{map[string]string{wire.HeaderFrame: "1"}, 200, wire.FrameContentType},
		{map[string]string{wire.HeaderFrame: "1", wire.HeaderTine: "1"}, 200, wire.FrameContentType},
		{map[string]string{wire.HeaderFrame: "2"}, 200, wire.FrameContentType},
		{map[string]string{wire.HeaderFrame: "3"}, 400, wire.JSONContentType},
		{map[string]string{wire.HeaderFrame: "1", wire.HeaderFrameCodec: "none"}, 200, wire.FrameContentType},
		{map[string]string{wire.HeaderFrame: "1", wire.HeaderFrameCodec: "zstd"}, 400, wire.JSONContentType},
		{map[string]string{wire.HeaderFrameCodec: "none"}, 200, wire.PackContentType},
	} {
		status, _, h := ts.send(t, "POST", "/v1/tenants/acme/fetch", "", wire.JSONContentType, body, c.header)
		if status != c.status || h.Get("Content-Type") != c.ctype {
			t.Errorf("fetch with %v = %d %s, want %d %s", c.header, status, h.Get("Content-Type"), c.status, c.ctype)
		}
	}
	for _, cfg := range []httpserve.Config{{NoTineFetchBlocks: true}, {NoTineFrameBlocks: true}} {
		old := startServer(t, cfg)
		if status, _, _ := old.send(t, "POST", "/v1/tenants/acme/fetch", "", wire.JSONContentType, body, map[string]string{wire.HeaderFrame: "2"}); status != 400 {
			t.Errorf("%+v: fetch with %s: 2 = %d, want 400", cfg, wire.HeaderFrame, status)
		}
		_, caps, _ := old.raw(t, "GET", "/v1/capabilities", "-", "", nil)
		if strings.Contains(caps, "fetch_blocks") || strings.Contains(caps, "frame_blocks") != cfg.NoTineFetchBlocks {
			t.Errorf("%+v: capabilities %s", cfg, caps)
		}
	}
	objs, boundary, err := objects.PackClosure(context.Background(), src.repo.Objects(), []objects.OID{src.run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	frame, id, err := wire.WriteFrame(objs, boundary, objects.DefaultPackLimits, true)
	if err != nil {
		t.Fatal(err)
	}
	upload := func(header map[string]string) (int, string) { return ts.uploadFrame(t, frame, header) }
	if status, text := upload(nil); status != 400 {
		t.Errorf("binary frame without %s = %d %s, want 400", wire.HeaderFrame, status, text)
	}
	if tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme")); err == nil {
		has, _ := tenant.Objects().Has(context.Background(), src.run)
		tenant.Close()
		if has {
			t.Errorf("the refused upload stored the run")
		}
	}
	if status, text := upload(map[string]string{wire.HeaderFrame: "1"}); status != 201 || !strings.Contains(text, id) {
		t.Errorf("binary frame with %s = %d %s, want 201 naming %s", wire.HeaderFrame, status, text, id)
	}
}

// TestHavesHeader: a fetch's Tine-Haves header may only say closure (else
// 400, nothing walked); a server hiding the extension ignores it, as
// OpenTine's does; the capabilities offer it only with the extension.
func TestHavesHeader(t *testing.T) {
	body := []byte(`{"wants":[],"haves":[],"depth":null,"object_types":[]}`)
	for _, hide := range []bool{false, true} {
		ts := startServer(t, httpserve.Config{HideTineExtension: hide})
		status, _, _ := ts.send(t, "POST", "/v1/tenants/acme/fetch", "", wire.JSONContentType, body, map[string]string{wire.HeaderHaves: "all"})
		if want := map[bool]int{false: 400, true: 200}[hide]; status != want {
			t.Errorf("hidden %v: fetch with %s: all = %d, want %d", hide, wire.HeaderHaves, status, want)
		}
		if status, _, _ := ts.send(t, "POST", "/v1/tenants/acme/fetch", "", wire.JSONContentType, body, map[string]string{wire.HeaderHaves: wire.HavesClosure}); status != 200 {
			t.Errorf("hidden %v: fetch with %s: %s = %d, want 200", hide, wire.HeaderHaves, wire.HavesClosure, status)
		}
		_, caps, _ := ts.raw(t, "GET", "/v1/capabilities", "-", "", nil)
		if got := strings.Contains(caps, `"have_closure":1`); got == hide {
			t.Errorf("hidden %v: capabilities %s", hide, caps)
		}
	}
}
