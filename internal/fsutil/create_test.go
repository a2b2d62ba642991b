package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateFileAtomicNeverReplaces: a new file is written whole with its
// mode; an existing one is refused and left as it was; no temporary file
// stays behind either way.
func TestCreateFileAtomicNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.tine")
	if err := CreateFileAtomic(p, []byte("first"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	err := CreateFileAtomic(p, []byte("second"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Fatalf("existing file replaced: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := CreateFileAtomic(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Fatal("created a file in a missing directory")
	}
}
