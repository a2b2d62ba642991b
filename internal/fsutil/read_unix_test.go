//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileNoSymlinksRefusesFIFO checks a FIFO is refused at once: it
// is opened non-blocking and fstat says it is not a regular file, where a
// plain open would wait for a writer forever.
func TestReadFileNoSymlinksRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFileNoSymlinks(dir, "fifo", 100)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Fatalf("FIFO: %v, want ErrNotRegular naming a FIFO", err)
		}
	case <-time.After(time.Minute):
		// A hang guard, not a timing assertion: the read never returns.
		t.Fatal("reading a FIFO blocked")
	}
}

// TestReadFileInDirRefusesFIFOAndEscapes checks the policy-key reader:
// links inside the directory are followed, links out of it are refused,
// and a FIFO is refused at once rather than waited on.
func TestReadFileInDirRefusesFIFOAndEscapes(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "k"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keys", "k"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"in": "keys/k", "out": filepath.Join(outside, "k"), "outdir": outside} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFileInDir(dir, "in", 100); err != nil || string(b) != "inside" {
		t.Fatalf("link inside: %q, %v", b, err)
	}
	for _, rel := range []string{"out", "outdir/k", "../k", "/etc/passwd"} {
		if b, err := ReadFileInDir(dir, rel, 100); err == nil {
			t.Errorf("%s: read %q, want a refusal", rel, b)
		}
	}
	if _, err := ReadFileInDir(dir, "keys", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v, want ErrNotRegular", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFileInDir(dir, "fifo", 100)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("reading a FIFO blocked") // a hang guard, not a timing assertion
	}
}

// TestReadFileWithOptions checks each rule ReadOptions adds: a final
// symlink refused with NoFollow (followed without), a second hard link
// refused with MaxLinks 1, and a larger file kept to Limit+1 bytes with
// KeepOver instead of refused.
func TestReadFileWithOptions(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileWith(link, ReadOptions{Limit: 10, NoFollow: true}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("NoFollow symlink: %v, want ErrSymlink", err)
	}
	if b, err := ReadFileWith(link, ReadOptions{Limit: 10}); err != nil || string(b) != "12345" {
		t.Fatalf("followed symlink: %q %v", b, err)
	}
	if _, err := ReadFileWith(f, ReadOptions{Limit: 4}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over limit: %v, want ErrTooLarge", err)
	}
	if b, err := ReadFileWith(f, ReadOptions{Limit: 3, KeepOver: true}); err != nil || string(b) != "1234" {
		t.Fatalf("KeepOver: %q %v, want the first 4 bytes", b, err)
	}
	if err := os.Link(f, filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileWith(f, ReadOptions{Limit: 10, MaxLinks: 1}); !errors.Is(err, ErrHardLinked) {
		t.Fatalf("MaxLinks 1 with two links: %v, want ErrHardLinked", err)
	}
	if _, err := ReadFileWith(f, ReadOptions{Limit: 10, MaxLinks: 2}); err != nil {
		t.Fatalf("MaxLinks 2 with two links: %v", err)
	}
}
