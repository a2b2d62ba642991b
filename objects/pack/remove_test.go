package pack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRemovePackKeepsIndexUntilPackIsGone: when the pack file cannot be
// removed, its index must still be there, because a pack without its
// index is kept forever as possibly needed (and fsck reports it). The
// pack is made unremovable by being a non-empty directory. Before
// RemovePack (then plumbing's removePack), gc's write-back removed the
// index first.
func TestRemovePackKeepsIndexUntilPackIsGone(t *testing.T) {
	dir := t.TempDir()
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	name := "pack-" + strings.Repeat("ab", 32)
	if err := os.MkdirAll(filepath.Join(dir, name+".pack", "busy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".idx"), []byte("index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePack(name); err == nil {
		t.Fatal("RemovePack succeeded although the pack could not be removed")
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
	if err := s.RemovePack(name); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".pack", ".idx"} {
		if _, err := os.Stat(filepath.Join(dir, name+ext)); !os.IsNotExist(err) {
			t.Fatalf("%s still there: %v", ext, err)
		}
	}
}

// TestRemovePackRefusesOtherNames: a name that is not a storage pack's
// ("../x", a temp file) is refused and nothing is removed.
func TestRemovePackRefusesOtherNames(t *testing.T) {
	dir := t.TempDir()
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	victim := filepath.Join(dir, "x.pack")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x", "../x", "pack-ab", objects.TempPrefix + "pack-1"} {
		if err := s.RemovePack(name); err == nil || !strings.Contains(err.Error(), "not a storage pack name") {
			t.Errorf("RemovePack(%q) = %v, want a refusal", name, err)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("a refused name removed a file: %v", err)
	}
}
