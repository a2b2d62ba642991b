package httpclient_test

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/remotetest"
)

// TestTransportSuite runs the shared transport suite over real HTTP: each
// case gets a fresh tine serve handler on a 127.0.0.1 listener, and the
// client reaches it through remote.Open like any http:// remote.
func TestTransportSuite(t *testing.T) {
	remotetest.Run(t, func(t *testing.T, a objects.Algo) remotetest.Remote {
		root := t.TempDir()
		s, err := httpserve.New(httpserve.Config{Root: root, Tenant: "acme", Token: []byte(testToken),
			Role: httpserve.RoleWriter, ObjectFormat: a})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		t.Cleanup(func() { hs.Close(); s.Close() })
		return remotetest.Remote{
			URL:     hs.URL + "/v1/tenants/acme",
			Options: remote.Options{Token: testToken},
			Dir:     filepath.Join(root, "tenants", "acme"),
			Fsck: func(t testing.TB) {
				r, err := plumbing.Open(filepath.Join(root, "tenants", "acme"))
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				remotetest.Fsck(t, r)
			},
		}
	})
}
