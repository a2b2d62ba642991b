package plumbing

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestPacksUnopenableIsNotEmpty: a repository opens its storage packs on
// first use; when objects/pack became unusable in between (here replaced
// by a symlink, which the store refuses), fsck reports a storage-pack
// problem and count-objects fails, instead of taking the store for one
// with no packs and no damage.
func TestPacksUnopenableIsNotEmpty(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	root := r.Root()
	storeChain(t, r, "heads/a", true, 3)
	r.Close()
	fr, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	dir := filepath.Join(root, "objects", "pack")
	moved := filepath.Join(root, "objects", "pack-elsewhere")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pack-elsewhere", dir); err != nil {
		t.Fatal(err)
	}
	res, err := Fsck(ctx, fr, FsckOptions{})
	if err == nil {
		found := false
		for _, p := range res.Problems {
			found = found || p.Code == ProblemStoragePack
		}
		if !found {
			t.Fatalf("fsck over unopenable packs: no storage-pack problem: %+v", res.Problems)
		}
	}
	if c, err := CountObjects(ctx, fr, CountObjectsOptions{}); err == nil {
		t.Fatalf("count-objects over unopenable packs succeeded: %+v", c)
	}
}
