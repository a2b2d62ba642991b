package pack

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spMergeIn returns an openWindowHook that, the first time a pack is
// about to be opened by name, has another process's store (other) merge
// every pack of dir, removing the one about to be opened: what a
// concurrent append's MergeSmall does. It fails the test unless the
// merge removed that pack.
func spMergeIn(t *testing.T, other *Store) func(string) {
	done := false
	return func(name string) {
		if done {
			return
		}
		done = true
		if err := other.Reload(); err != nil {
			t.Errorf("merger's Reload: %v", err)
			return
		}
		res, err := other.MergeSmall(context.Background(), 0)
		if err != nil || !slices.Contains(res.Merged, name) {
			t.Errorf("merge while %s is opened: merged %v, %v", name, res.Merged, err)
		}
	}
}

// TestStoragePackAppendBesideMerge interleaves, in one process, what two
// tine records do at once: one commits its append pack, and before it
// opens the pack by name the other merges it away (its append left more
// than AppendPackLimit packs). The append stands, its objects readable
// from the merged pack. Before, the append failed: its pack's index was
// gone, so tine record reported a missing .idx though every object was
// stored.
func TestStoragePackAppendBesideMerge(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	dir := t.TempDir()
	all, runs := spTestRuns(t, a, 3)
	writer := spOpenTestPacks(t, dir, a)
	merger := spOpenTestPacks(t, dir, a)
	if _, err := writer.WriteAppendPack(ctx, all[0:2], objects.OID{}); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.WriteAppendPack(ctx, all[2:4], runs[0].ID); err != nil {
		t.Fatal(err)
	}
	openWindowHook = spMergeIn(t, merger)
	defer func() { openWindowHook = nil }()
	name, err := writer.WriteAppendPack(ctx, all[4:6], runs[1].ID)
	if err != nil {
		t.Fatalf("append whose pack another process merged: %v", err)
	}
	openWindowHook = nil
	if slices.Contains(spPackNames(t, writer), name) {
		t.Fatalf("%s is still searched after the merge removed it", name)
	}
	for _, o := range all {
		spCheckGet(t, writer, o)
	}
}

// TestStoragePackReloadBesideMerge: a store lists the directory, and
// before it opens the listed packs another process merges them and
// removes their files, the merged pack committed after the listing. The
// store lists again and finds every object in the merged pack. Before,
// it skipped the vanished packs without listing again, and every object
// read as not found.
func TestStoragePackReloadBesideMerge(t *testing.T) {
	a := objects.BLAKE3
	dir := t.TempDir()
	reader := spOpenTestPacks(t, dir, a)
	objs := spTestObjects(t, a, 6)
	spWriteTestPack(t, dir, a, objs[:3], Options{})
	spWriteTestPack(t, dir, a, objs[3:], Options{})
	merger := spOpenTestPacks(t, dir, a)
	openWindowHook = spMergeIn(t, merger)
	defer func() { openWindowHook = nil }()
	if err := reader.Reload(); err != nil {
		t.Fatalf("Reload beside a merge: %v", err)
	}
	openWindowHook = nil
	if got := len(spPackNames(t, reader)); got != 1 {
		t.Fatalf("%d packs after the merge, want the merged one", got)
	}
	for _, o := range objs {
		spCheckGet(t, reader, o)
	}
	if d := spDamaged(t, reader); len(d) != 0 {
		t.Fatalf("damaged after a merge: %v", d)
	}
}

// TestStoragePackReloadKeepsLeftoverIndex: an index whose pack file gc
// removed (a kill between the two removals) vanishes at every listing; a
// Reload lists the directory once more, not until it gives up, and the
// other packs stay readable.
func TestStoragePackReloadKeepsLeftoverIndex(t *testing.T) {
	a := objects.BLAKE3
	dir := t.TempDir()
	objs := spTestObjects(t, a, 4)
	gone := spWriteTestPack(t, dir, a, objs[:2], Options{})
	spWriteTestPack(t, dir, a, objs[2:], Options{})
	if err := os.Remove(filepath.Join(dir, gone+".pack")); err != nil {
		t.Fatal(err)
	}
	lists := 0
	openWindowHook = func(name string) {
		if name == gone {
			lists++
		}
	}
	defer func() { openWindowHook = nil }()
	s := spOpenTestPacks(t, dir, a)
	spPackNames(t, s) // the packs are opened on first use
	openWindowHook = nil
	if lists != 2 {
		t.Fatalf("the leftover index was opened in %d listings, want 2", lists)
	}
	for _, o := range objs[2:] {
		spCheckGet(t, s, o)
	}
}
