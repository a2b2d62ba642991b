package remote_test

import (
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/remotetest"
)

// TestFileTransport runs the shared transport suite over the path
// transport: every remote is a real repository in a temporary directory.
func TestFileTransport(t *testing.T) {
	remotetest.Run(t, func(t *testing.T, a objects.Algo) remotetest.Remote {
		dir := t.TempDir()
		r, _, err := plumbing.Init(dir, a)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		return remotetest.Remote{URL: dir, Dir: dir, Fsck: func(t testing.TB) {
			r, err := plumbing.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			remotetest.Fsck(t, r)
		}}
	})
}
