package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomicNoSymlinks: the file is written, with its missing
// directories, only when no component of its path is a symlink and it is
// absent or a regular file; a link and what it reaches are left as they
// were, and no temporary file is left behind.
func TestWriteFileAtomicNoSymlinks(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "f")
	if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"out": outside, "a/link": target, "a/dangling": filepath.Join(outside, "new")} {
		if err := os.Symlink(to, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	for _, rel := range []string{"out/f", "out/sub/g", "a/link", "a/dangling"} {
		if err := WriteFileAtomicNoSymlinks(dir, rel, []byte("new"), 0o644); !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", rel, err)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "outside" {
		t.Fatalf("the file a link reaches: %q, %v", b, err)
	}
	for _, p := range []string{filepath.Join(outside, "new"), filepath.Join(outside, "sub")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("%s was created through a link: %v", p, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "a", "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link itself: %v, %v", fi, err)
	}
	if err := WriteFileAtomicNoSymlinks(dir, "a/d", []byte("x"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	if err := WriteFileAtomicNoSymlinks(dir, "../x", []byte("x"), 0o644); !errors.Is(err, ErrBadPath) {
		t.Errorf("an escape: %v, want ErrBadPath", err)
	}
	for _, rel := range []string{"a/f", "b/c/f", "a/f"} {
		if err := WriteFileAtomicNoSymlinks(dir, rel, []byte(rel), 0o600); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if b, err := os.ReadFile(p); err != nil || string(b) != rel {
			t.Fatalf("%s: %q, %v", rel, b, err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", rel, fi.Mode())
		}
	}
	for _, d := range []string{"a", "b/c"} {
		ents, _ := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		for _, e := range ents {
			if len(e.Name()) > 4 && e.Name()[:5] == ".tmp-" {
				t.Errorf("temporary file left: %s/%s", d, e.Name())
			}
		}
	}
}
