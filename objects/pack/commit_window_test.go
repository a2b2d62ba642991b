package pack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// TestStoragePackCommitWindowReadsAsNoPack: between the two renames of
// Commit, a reader sees the new pack as not there (not as damaged), and
// the directory as it is then, which is what a kill at that moment
// leaves, reads as "no pack" too: every earlier pack is read, nothing is
// damaged, and RemoveGarbage clears the leftovers once they are old
// (never while young: a running writer's). After the commit the pack is
// whole.
func TestStoragePackCommitWindowReadsAsNoPack(t *testing.T) {
	a := objects.BLAKE3
	ctx := context.Background()
	dir := t.TempDir()
	objs := spTestObjects(t, a, 6)
	first := spWriteTestPack(t, dir, a, objs[:3], Options{})
	snap := t.TempDir()
	hooked := false
	commitWindowHook = func(d, name string) {
		hooked = true
		r := spOpenTestPacks(t, d, a)
		if got := spPackNames(t, r); !slices.Equal(got, []string{first}) {
			t.Errorf("in the commit window: packs %v, want only %s", got, first)
		}
		if d := spDamaged(t, r); len(d) != 0 {
			t.Errorf("in the commit window: damaged %v, want none", d)
		}
		if _, err := r.Get(ctx, objs[4].ID); !errors.Is(err, objects.ErrNotFound) || strings.Contains(err.Error(), "damaged") {
			t.Errorf("in the commit window: Get of the new pack's object: %v, want plain not found", err)
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(snap, e.Name()), b, 0o444); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func() { commitWindowHook = nil }()
	second := spWriteTestPack(t, dir, a, objs[3:], Options{})
	commitWindowHook = nil
	if !hooked {
		t.Fatal("Commit never reached the window between its renames")
	}
	s := spOpenTestPacks(t, dir, a)
	for _, o := range objs {
		spCheckGet(t, s, o)
	}

	// What a kill in the window leaves.
	k := spOpenTestPacks(t, snap, a)
	if got, d := spPackNames(t, k), spDamaged(t, k); !slices.Equal(got, []string{first}) || len(d) != 0 {
		t.Fatalf("after a kill in the window: packs %v, damaged %v; want only %s, no damage", got, d, first)
	}
	for _, o := range objs[:3] {
		spCheckGet(t, k, o)
	}
	leftovers := func() []string {
		var out []string
		ents, _ := os.ReadDir(snap)
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), first) {
				out = append(out, e.Name())
			}
		}
		return out
	}
	if l := leftovers(); len(l) != 2 || !slices.Contains(l, second+".idx") {
		t.Fatalf("leftovers of the kill: %v, want the new index and the temporary pack", l)
	}
	if n, err := k.RemoveGarbage(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("RemoveGarbage of young leftovers: %d, %v; want none touched (a writer may be running)", n, err)
	}
	if n, err := k.RemoveGarbage(ctx, time.Now().Add(time.Minute)); err != nil || n != 2 || len(leftovers()) != 0 {
		t.Fatalf("RemoveGarbage of old leftovers: %d, %v, left %v; want both removed", n, err, leftovers())
	}
	if err := k.Reload(); err != nil {
		t.Fatal(err)
	}
	if got, d := spPackNames(t, k), spDamaged(t, k); !slices.Equal(got, []string{first}) || len(d) != 0 {
		t.Fatalf("after RemoveGarbage: packs %v, damaged %v", got, d)
	}
}
