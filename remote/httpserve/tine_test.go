package httpserve_test

import (
	"errors"
	"testing"

	"github.com/tinehq/tine/objects"
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
