package plumbing

import (
	"testing"

	"github.com/tinehq/tine/objects"
)

// packsOn opts a sha256 repository into storage packs, for tests of the
// packing machinery itself (blake3 repositories always use them).
func packsOn(t testing.TB, r *Repo) *Repo {
	t.Helper()
	if r.Algo() == objects.SHA256 {
		if err := r.SetStoragePacks(true); err != nil {
			t.Fatalf("opt into storage packs: %v", err)
		}
	}
	return r
}
