package plumbing

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// TestGCPruneRefusesDamagedYoungView: gc learns what a young pack holds
// from a scratch copy of it. When that copy cannot be read (here its index
// is truncated after the copy, as a pack that changed under gc or a bad
// copy would leave it), gc stops with ErrDamagedPacks naming the pack and
// deletes nothing; before, the view skipped the damaged copy, so the young
// pack's unreachable objects counted as old and were dropped.
func TestGCPruneRefusesDamagedYoungView(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		packsOn(t, r)
		ctx := context.Background()
		a := r.Algo()
		keep := storeChain(t, r, "heads/keep", false, 2)
		oldPacked := objects.NewBlob(a, []byte("unreachable, old, packed"))
		youngPacked := objects.NewBlob(a, []byte("unreachable, young, packed"))
		old := packAged(t, r, []*objects.Object{oldPacked}, 48*time.Hour)
		young := packAged(t, r, []*objects.Object{youngPacked}, time.Minute)
		damaged := 0
		gcViewHook = func(dir string) {
			idx := filepath.Join(dir, young+".idx")
			if _, err := os.Stat(idx); err != nil {
				return
			}
			os.Chmod(idx, 0o644)
			if err := os.WriteFile(idx, []byte("TINESIX\x00 truncated"), 0o444); err != nil {
				t.Error(err)
			}
			damaged++
		}
		defer func() { gcViewHook = nil }()
		_, err := GC(ctx, r, GCOptions{Prune: true, PruneAge: 24 * time.Hour})
		if damaged == 0 {
			t.Fatal("gc made no copy of the young pack")
		}
		if !errors.Is(err, ErrDamagedPacks) || !errorMentions(err, young) {
			t.Fatalf("gc --prune with an unreadable copy of a young pack: %v; want ErrDamagedPacks naming %s", err, young)
		}
		gcViewHook = nil
		mustReadAll(t, r.Root(), append(keep, youngPacked.ID, oldPacked.ID))
		for _, name := range []string{old, young} {
			for _, ext := range []string{".pack", ".idx"} {
				if _, err := os.Stat(filepath.Join(r.Root(), "objects", "pack", name+ext)); err != nil {
					t.Fatalf("a refused gc removed %s%s: %v", name, ext, err)
				}
			}
		}
		// Sound again, the same gc prunes the old object and keeps the
		// young one.
		if _, err := GC(ctx, r, GCOptions{Prune: true, PruneAge: 24 * time.Hour}); err != nil {
			t.Fatal(err)
		}
		mustReadAll(t, r.Root(), append(keep, youngPacked.ID))
		if _, err := r.Objects().Get(ctx, oldPacked.ID); !errors.Is(err, objects.ErrNotFound) {
			t.Fatalf("old unreachable object after gc --prune: %v", err)
		}
	})
}

// errorMentions reports whether err's text contains s.
func errorMentions(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}
