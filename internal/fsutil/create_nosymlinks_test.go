package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// linkFixture makes dir with a directory a/ and links pointing into
// outside (a directory link "out", a file link "a/link" to outside/f, a
// dangling link "a/dangling" to outside/new), and returns dir, outside and
// outside/f, which holds "outside".
func linkFixture(t *testing.T) (dir, outside, target string) {
	t.Helper()
	outside = t.TempDir()
	target = filepath.Join(outside, "f")
	if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"out": outside, "a/link": target, "a/dangling": filepath.Join(outside, "new")} {
		if err := os.Symlink(to, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	return dir, outside, target
}

// checkOutsideUntouched: the file the links reach keeps its bytes, nothing
// new appears outside, and the links are still links.
func checkOutsideUntouched(t *testing.T, dir, outside, target string) {
	t.Helper()
	if b, err := os.ReadFile(target); err != nil || string(b) != "outside" {
		t.Fatalf("the file a link reaches: %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Fatalf("%d entries outside, want only f", len(ents))
	}
	for _, l := range []string{"out", "a/link", "a/dangling"} {
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(l))); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v, %v", l, fi, err)
		}
	}
}

// TestCreateFileAtomicNoSymlinks: the file is created, with its missing
// directories, only when it does not exist and no component of its path
// is a symlink; an existing file is never replaced.
func TestCreateFileAtomicNoSymlinks(t *testing.T) {
	dir, outside, target := linkFixture(t)
	for _, rel := range []string{"out/g", "out/sub/g", "a/link", "a/dangling"} {
		if err := CreateFileAtomicNoSymlinks(dir, rel, []byte("new"), 0o755); !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", rel, err)
		}
	}
	checkOutsideUntouched(t, dir, outside, target)
	if err := CreateFileAtomicNoSymlinks(dir, "b/c/f", []byte("one"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CreateFileAtomicNoSymlinks(dir, "b/c/f", []byte("two"), 0o755); !errors.Is(err, fs.ErrExist) {
		t.Errorf("an existing file: %v, want ErrExist", err)
	}
	p := filepath.Join(dir, "b", "c", "f")
	if b, err := os.ReadFile(p); err != nil || string(b) != "one" {
		t.Fatalf("created file: %q, %v", b, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestEnsureFileNoSymlinks: a lock file is created empty, or kept as it
// is, only when no component of its path is a symlink; a dangling link's
// target is not created.
func TestEnsureFileNoSymlinks(t *testing.T) {
	dir, outside, target := linkFixture(t)
	for _, rel := range []string{"out/g", "out/sub/g", "a/link", "a/dangling"} {
		if err := EnsureFileNoSymlinks(dir, rel, 0o644); !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", rel, err)
		}
	}
	checkOutsideUntouched(t, dir, outside, target)
	if err := EnsureFileNoSymlinks(dir, "a/d", 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	p := filepath.Join(dir, "b", "c", "l")
	for range 2 {
		if err := EnsureFileNoSymlinks(dir, "b/c/l", 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		t.Fatalf("lock file: %v, %v", fi, err)
	}
}
