package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveNoSymlinks: the file is removed only when no component of its
// path is a symlink and it is a regular file; nothing a link reaches is
// touched.
func TestRemoveNoSymlinks(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "f")
	if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "f"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"out": outside, "a/link": target} {
		if err := os.Symlink(to, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	for _, rel := range []string{"out/f", "a/link"} {
		if err := RemoveNoSymlinks(dir, rel); !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", rel, err)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "outside" {
		t.Fatalf("the file a link reaches: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a", "link")); err != nil {
		t.Fatalf("the link itself: %v", err)
	}
	if err := RemoveNoSymlinks(dir, "a/d"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	if err := RemoveNoSymlinks(dir, "../x"); !errors.Is(err, ErrBadPath) {
		t.Errorf("an escape: %v, want ErrBadPath", err)
	}
	if err := RemoveNoSymlinks(dir, "a/f"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a", "f")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a/f was not removed: %v", err)
	}
	for _, rel := range []string{"a/f", "b/f"} {
		if err := RemoveNoSymlinks(dir, rel); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s, missing: %v, want ErrNotExist", rel, err)
		}
	}
}
