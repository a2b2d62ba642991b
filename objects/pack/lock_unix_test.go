//go:build unix

package pack

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestStoragePackLockRefusesSymlink: a symlink in the lock file's place
// is not followed (it could lead a commit to create or lock a file
// anywhere): the commit fails naming the lock, and the target is not
// created.
func TestStoragePackLockRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	_, err := spCommit(dir, objects.BLAKE3, spTestObjects(t, objects.BLAKE3, 2))
	if err == nil || !strings.Contains(err.Error(), "storage pack lock") {
		t.Fatalf("commit beside a symlinked lock: %v, want a refusal naming the lock", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatalf("the symlink's target was created: %v", err)
	}
}

// TestStoragePackLockFIFODoesNotBlock: a FIFO in the lock file's place
// does not hang a commit in its open (O_NONBLOCK): the commit goes
// through (fsck names the FIFO a stray file, as for any non-regular
// lock).
func TestStoragePackLockFIFODoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, LockFile), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	objs := spTestObjects(t, objects.BLAKE3, 2)
	if _, err := spCommit(dir, objects.BLAKE3, objs); err != nil {
		t.Fatalf("commit beside a FIFO lock: %v", err)
	}
	spCheckAll(t, dir, objects.BLAKE3, objs)
}
