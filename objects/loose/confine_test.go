package loose_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// farFuture is a cutoff after every file's modification time.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// listIDs returns what s enumerates.
func listIDs(t *testing.T, s objects.Store) []objects.OID {
	t.Helper()
	var ids []objects.OID
	if err := s.List(context.Background(), func(id objects.OID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

func write(t *testing.T, p string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLooseListSkipsStrays(t *testing.T) {
	s := newLoose(t, objects.BLAKE3)
	o := objects.NewBlob(objects.BLAKE3, []byte("the only object"))
	if err := s.Put(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	hex62 := strings.Repeat("ab", 31)
	d := s.Dir()
	write(t, filepath.Join(d, "pack", "ab", hex62), "not a type dir")
	write(t, filepath.Join(d, "Blob", "ab", hex62), "type names are lowercase")
	write(t, filepath.Join(d, "blob", "zz", hex62), "not hex")
	write(t, filepath.Join(d, "blob", "abc", hex62), "prefix too long")
	write(t, filepath.Join(d, "blob", "AB", hex62), "uppercase prefix")
	write(t, filepath.Join(d, "blob", "ab", strings.ToUpper(hex62)), "uppercase name")
	write(t, filepath.Join(d, "blob", "ab", hex62[:60]), "name too short")
	write(t, filepath.Join(d, "blob", "ab", ".tmp-"+hex62+"-123"), "temp file")
	write(t, filepath.Join(d, "blob", "cd"), "fan-out name that is a file")
	write(t, filepath.Join(d, "event"), "type name that is a file")
	if err := os.MkdirAll(filepath.Join(d, "run", "ef", hex62), 0o755); err != nil {
		t.Fatal(err) // a directory under an object name
	}
	got := listIDs(t, s)
	if len(got) != 1 || got[0] != o.ID {
		t.Fatalf("List = %v, want just %s", got, o.ID)
	}
}

func TestLooseRefusesLinks(t *testing.T) {
	s := newLoose(t, objects.BLAKE3)
	ctx := t.Context()
	target := objects.NewBlob(objects.BLAKE3, []byte("target"))
	if err := s.Put(ctx, target); err != nil {
		t.Fatal(err)
	}
	targetPath, _ := s.Path(target.ID)

	// An object file that is a symlink to a valid object file.
	sym := objects.NewBlob(objects.BLAKE3, []byte("symlinked"))
	symPath, _ := s.Path(sym.ID)
	if err := os.MkdirAll(filepath.Dir(symPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(targetPath, symPath); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, sym.ID); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Errorf("Get through a symlink: %v; want ErrUnsafeFile", err)
	}
	if _, err := s.Has(ctx, sym.ID); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Errorf("Has of a symlink: %v; want ErrUnsafeFile", err)
	}

	// A hard link to the target: both names now have a link count of 2.
	hard := objects.NewBlob(objects.BLAKE3, []byte("hard-linked"))
	hardPath, _ := s.Path(hard.ID)
	if err := os.MkdirAll(filepath.Dir(hardPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(targetPath, hardPath); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, id := range []objects.OID{hard.ID, target.ID} {
		if _, err := s.Get(ctx, id); !errors.Is(err, objects.ErrUnsafeFile) {
			t.Errorf("Get(%s) of a hard-linked file: %v; want ErrUnsafeFile", id, err)
		}
	}
	// Enumeration still reports the entries, so fsck sees them.
	if n := len(listIDs(t, s)); n != 3 {
		t.Errorf("List has %d ids, want 3", n)
	}
	// A put replaces a linked copy with a file of its own.
	if err := s.Put(ctx, target); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, target.ID); err != nil {
		t.Errorf("Get after put: %v", err)
	}
}

func TestLooseRefusesSymlinkedDirs(t *testing.T) {
	outside := t.TempDir()
	s := newLoose(t, objects.SHA256)
	ctx := t.Context()
	o := objects.NewBlob(objects.SHA256, []byte("outside the repository"))
	rel, _ := objects.LoosePath(o.ID) // objects/blob/xx/yyy
	// Plant a valid object outside and link the blob type directory to it.
	write(t, filepath.Join(outside, filepath.FromSlash(strings.TrimPrefix(rel, "objects/"))), string(o.Stored()))
	if err := os.Symlink(filepath.Join(outside, "blob"), filepath.Join(s.Dir(), "blob")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, o.ID); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Errorf("Get through a symlinked type directory: %v; want ErrUnsafeFile", err)
	}
	if err := s.Put(ctx, objects.NewBlob(objects.SHA256, []byte("new"))); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Errorf("Put into a symlinked type directory: %v; want ErrUnsafeFile", err)
	}
	if n := len(listIDs(t, s)); n != 0 {
		t.Errorf("List followed a symlinked directory: %d ids", n)
	}
}

func TestLooseRemoveStaleTemp(t *testing.T) {
	s := newLoose(t, objects.BLAKE3)
	ctx := t.Context()
	o := objects.NewBlob(objects.BLAKE3, []byte("kept"))
	if err := s.Put(ctx, o); err != nil {
		t.Fatal(err)
	}
	objPath, _ := s.Path(o.ID)
	fan := filepath.Dir(objPath)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	cutoff := time.Date(2002, 1, 1, 0, 0, 0, 0, time.UTC)
	stale := []string{
		filepath.Join(fan, ".tmp-deadbeef-1"),
		filepath.Join(s.Dir(), "blob", ".tmp-stream-2"),
	}
	fresh := filepath.Join(fan, ".tmp-deadbeef-3")
	notTemp := filepath.Join(fan, "README")
	for _, p := range append(stale, fresh, notTemp) {
		write(t, p, "partial")
	}
	for _, p := range append(stale, notTemp) {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.RemoveStaleTemp(ctx, cutoff)
	if err != nil || n != len(stale) {
		t.Fatalf("RemoveStaleTemp = %d, %v; want %d", n, err, len(stale))
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s not removed", p)
		}
	}
	for _, p := range []string{fresh, notTemp, objPath} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}
