package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenNoSymlinksRefusesEveryLinkedComponent(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{"a/b", "real"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a/b/f"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"a/link":   filepath.Join(outside, "f"), // a symlinked file pointing out
		"a/inside": "b/f",                       // a symlinked file pointing in
		"dlink":    "a",                         // a symlinked directory pointing in
		"out":      outside,                     // a symlinked directory pointing out
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	b, err := ReadFileNoSymlinks(dir, "a/b/f", 100)
	if err != nil || string(b) != "inside" {
		t.Fatalf("plain path: %q, %v", b, err)
	}
	for _, rel := range []string{"a/link", "a/inside", "dlink/b/f", "out/f"} {
		_, err := ReadFileNoSymlinks(dir, rel, 100)
		if !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", rel, err)
		}
	}
	for _, rel := range []string{"", "/etc/passwd", "../x", "a/../a/b/f", "a//b/f", "./a", `a\b`} {
		if _, err := ReadFileNoSymlinks(dir, rel, 100); !errors.Is(err, ErrBadPath) {
			t.Errorf("%q: %v, want ErrBadPath", rel, err)
		}
	}
	if _, err := ReadFileNoSymlinks(dir, "a/b", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v, want ErrNotRegular", err)
	}
	if _, err := ReadFileNoSymlinks(dir, "a/b/f/g", 100); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as directory: %v", err)
	}
	if _, err := ReadFileNoSymlinks(dir, "a/b/f", 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("bound: %v, want ErrTooLarge", err)
	}
}
