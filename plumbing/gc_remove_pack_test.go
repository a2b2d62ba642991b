package plumbing

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemovePackKeepsIndexUntilPackIsGone: when the pack file cannot be
// removed, its index must still be there, because a pack without its
// index is kept forever as possibly needed (and fsck reports it). The
// pack is made unremovable by being a non-empty directory. Before
// removePack, gc's write-back removed the index first.
func TestRemovePackKeepsIndexUntilPackIsGone(t *testing.T) {
	dir := t.TempDir()
	name := "pack-x"
	if err := os.MkdirAll(filepath.Join(dir, name+".pack", "busy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".idx"), []byte("index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := removePack(dir, name); err == nil {
		t.Fatal("removePack succeeded although the pack could not be removed")
	}
	if _, err := os.Stat(filepath.Join(dir, name+".idx")); err != nil {
		t.Fatalf("the index went before its pack: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(dir, name+".pack")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pack"), []byte("pack"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := removePack(dir, name); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".pack", ".idx"} {
		if _, err := os.Stat(filepath.Join(dir, name+ext)); !os.IsNotExist(err) {
			t.Fatalf("%s still there: %v", ext, err)
		}
	}
}
