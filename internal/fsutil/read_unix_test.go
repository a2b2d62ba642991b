//go:build unix

package fsutil

import (
	"errors"
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
