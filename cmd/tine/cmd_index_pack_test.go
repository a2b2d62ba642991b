package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damagedPackRepo records heads/a and packs it (pack A), records heads/b
// and packs it (pack B), records heads/c (loose), and returns the
// repository and pack A's name.
func damagedPackRepo(t *testing.T) (repo, packA string) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := tineRun(t, "", "init", "--object-format", "blake3", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	repo = filepath.Join(dir, ".tine")
	packDir := filepath.Join(repo, "objects", "pack")
	record := func(ref string) {
		if code, _, errs := tineRun(t, "", "--repo", repo, "record", "--ref", ref, "--", "true"); code != 0 {
			t.Fatalf("record %s: %s", ref, errs)
		}
	}
	gc := func() {
		if code, _, errs := tineRun(t, "", "--repo", repo, "gc"); code != 0 {
			t.Fatalf("gc: %s", errs)
		}
	}
	record("heads/a")
	record("heads/a")
	// Each append wrote a pack of its own: repack them into one.
	if code, _, errs := tineRun(t, "", "--repo", repo, "repack", "-d"); code != 0 {
		t.Fatalf("repack: %s", errs)
	}
	packs, _ := filepath.Glob(filepath.Join(packDir, "pack-*.idx"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	packA = strings.TrimSuffix(filepath.Base(packs[0]), ".idx")
	record("heads/b")
	gc()
	record("heads/c")
	return repo, packA
}

// flipByte flips one bit in the middle of path.
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedIndexStaysLocal flips one byte of a pack's index: before,
// every verb refused the whole repository. Now verbs that do not need the
// pack work, a read of one of its objects names it and tine index-pack,
// fsck reports it with the fix, gc --prune refuses naming it, a plain gc
// keeps it, and index-pack restores a clean repository.
func TestDamagedIndexStaysLocal(t *testing.T) {
	repo, packA := damagedPackRepo(t)
	idx := filepath.Join(repo, "objects", "pack", packA+".idx")
	flipByte(t, idx)

	if code, out, errs := tineRun(t, "", "--repo", repo, "refs"); code != 0 || strings.Count(out, "\n") != 3 {
		t.Fatalf("refs with a damaged index: %d\n%s%s", code, out, errs)
	}
	for _, ref := range []string{"heads/b", "heads/c"} { // in another pack, loose
		if code, _, errs := tineRun(t, "", "--repo", repo, "log", ref); code != 0 {
			t.Fatalf("log %s with another pack's index damaged: %d %s", ref, code, errs)
		}
	}
	// show reads the run object (log of it answers from the history
	// index, reading only the events it prints).
	code, _, errs := tineRun(t, "", "--repo", repo, "show", "heads/a")
	if code != 1 || !strings.Contains(errs, packA) || !strings.Contains(errs, "tine index-pack") {
		t.Fatalf("show of a run in the damaged pack: %d %s", code, errs)
	}
	assertOneErrorLine(t, errs, "tine show: ")
	code, out, _ := tineRun(t, "", "--repo", repo, "fsck")
	if code != 1 || !strings.Contains(out, packA+".idx") || !strings.Contains(out, "tine index-pack "+packA) {
		t.Fatalf("fsck with a damaged index: %d\n%s", code, out)
	}
	code, _, errs = tineRun(t, "", "--repo", repo, "gc", "--prune=now")
	if code != 1 || !strings.Contains(errs, packA) || !strings.Contains(errs, "tine index-pack "+packA) {
		t.Fatalf("gc --prune with a damaged index: %d %s", code, errs)
	}
	assertOneErrorLine(t, errs, "tine gc: ")
	if code, _, errs := tineRun(t, "", "--repo", repo, "gc"); code != 0 {
		t.Fatalf("gc with a damaged index: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(repo, "objects", "pack", packA+".pack")); err != nil {
		t.Fatalf("gc removed the pack whose index is damaged: %v", err)
	}

	code, out, errs = tineRun(t, "", "--repo", repo, "index-pack", packA)
	if code != 0 || !strings.Contains(out, "rebuilt the index of "+packA) {
		t.Fatalf("index-pack: %d %s %s", code, out, errs)
	}
	if code, out, _ := tineRun(t, "", "--repo", repo, "fsck"); code != 0 {
		t.Fatalf("fsck after index-pack: %d\n%s", code, out)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "log", "heads/a"); code != 0 {
		t.Fatalf("log after index-pack: %s", errs)
	}
}

// TestGCKeepsPackWithoutIndex deletes a pack's index: before, a plain gc
// removed the intact pack as a leftover while heads/a still needed it.
func TestGCKeepsPackWithoutIndex(t *testing.T) {
	repo, packA := damagedPackRepo(t)
	pack := filepath.Join(repo, "objects", "pack", packA+".pack")
	if err := os.Remove(filepath.Join(repo, "objects", "pack", packA+".idx")); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour) // older than any leftover age
	os.Chtimes(pack, old, old)
	for _, args := range [][]string{{"gc"}, {"repack", "-d"}, {"fsck", "--remove-stale", "--stale-after", "1s"}} {
		tineRun(t, "", append([]string{"--repo", repo}, args...)...)
		if _, err := os.Stat(pack); err != nil {
			t.Fatalf("%v removed the pack without an index: %v", args, err)
		}
	}
	code, out, _ := tineRun(t, "", "--repo", repo, "fsck")
	if code != 1 || !strings.Contains(out, "tine index-pack "+packA) {
		t.Fatalf("fsck of a pack without an index: %d\n%s", code, out)
	}
	if code, out, errs := tineRun(t, "", "--repo", repo, "index-pack", pack); code != 0 {
		t.Fatalf("index-pack: %d %s %s", code, out, errs)
	}
	if code, out, _ := tineRun(t, "", "--repo", repo, "fsck"); code != 0 {
		t.Fatalf("fsck after index-pack: %d\n%s", code, out)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "gc", "--prune=now"); code != 0 {
		t.Fatalf("gc --prune after index-pack: %s", errs)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "log", "heads/a"); code != 0 {
		t.Fatalf("log after gc: %s", errs)
	}
}
