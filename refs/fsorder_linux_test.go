package refs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMetadataOrderedAgreesWithExt4Options cross-checks the detection of an
// ext4 journal (jbd2's entry for the device) with the mount's own options:
// a journalled ext4 lists its data mode there.
func TestMetadataOrderedAgreesWithExt4Options(t *testing.T) {
	dir := t.TempDir()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || uint64(fs.Type) != ext4Magic {
		t.Skipf("%s is not on ext4", dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	dev := uint64(fi.Sys().(*syscall.Stat_t).Dev)
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	link, err := os.Readlink(fmt.Sprintf("/sys/dev/block/%d:%d", major, minor))
	if err != nil {
		t.Skipf("no block device entry: %v", err)
	}
	opts, err := os.ReadFile(filepath.Join("/proc/fs/ext4", filepath.Base(link), "options"))
	if err != nil {
		t.Skipf("no ext4 options: %v", err)
	}
	journalled := strings.Contains(string(opts), "data=")
	if got := metadataOrdered(dir); got != journalled {
		t.Fatalf("metadataOrdered(%s) = %v, but the mount options say journalled %v:\n%s", dir, got, journalled, opts)
	}
	t.Logf("%s: journalled %v", dir, journalled)
}

// TestMetadataOrderedNeedsOneFileSystem: refs/ and logs/ on two file
// systems are never taken as ordered, since no journal orders the changes
// of two file systems between them.
func TestMetadataOrderedNeedsOneFileSystem(t *testing.T) {
	dir := t.TempDir()
	if _, ok := oneDevice([]string{dir, t.TempDir()}); !ok {
		t.Fatal("two directories of one file system are taken as two")
	}
	if _, ok := oneDevice([]string{dir, "/proc"}); ok {
		t.Fatal("a directory and /proc are taken as one file system")
	}
	if _, ok := oneDevice(nil); ok {
		t.Fatal("no directory is taken as one file system")
	}
	if metadataOrdered(dir, "/proc") || metadataOrdered("/proc", dir) {
		t.Fatal("a directory and /proc are taken as one ordered file system")
	}
}
