package plumbing

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestAppendRouting: a blake3 repository (and a sha256 one that opted into
// storage packs) writes appends as packs, the runs as deltas, with no
// loose object; a sha256 repository that did not opt in writes every
// append as loose files, the SPEC's layout that OpenTine reads, and no
// pack.
func TestAppendRouting(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		algo  objects.Algo
		optIn bool
		packs bool
	}{
		{"blake3", objects.BLAKE3, false, true},
		{"sha256 opted in", objects.SHA256, true, true},
		{"sha256", objects.SHA256, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t, c.algo)
			if c.optIn {
				r = packsOn(t, r)
			}
			if r.AppendsToPacks() != c.packs {
				t.Fatalf("AppendsToPacks = %v", r.AppendsToPacks())
			}
			for i := range 20 {
				if err := appendOne(ctx, r, i); err != nil {
					t.Fatal(err)
				}
			}
			packs, _ := filepath.Glob(filepath.Join(r.Root(), "objects", "pack", "pack-*.pack"))
			var loose int
			for _, typ := range []string{"event", "run"} {
				filepath.WalkDir(filepath.Join(r.Root(), "objects", typ), func(_ string, d os.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() {
						loose++
					}
					return nil
				})
			}
			if c.packs && (len(packs) == 0 || loose != 0) || !c.packs && (len(packs) != 0 || loose != 40) {
				t.Fatalf("%d packs, %d loose events and runs", len(packs), loose)
			}
			mustFsckClean(t, r)
		})
	}
}
