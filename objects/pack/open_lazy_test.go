package pack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestStoragePackOpenDefersPacks: Open lists the directory but maps no
// index; the first lookup opens every pack, and the store then reads as
// an eagerly opened one did (a short verb that reads only refs or loose
// objects never pays for the packs).
func TestStoragePackOpenDefersPacks(t *testing.T) {
	a := objects.BLAKE3
	dir := t.TempDir()
	objs := spTestObjects(t, a, 6)
	spWriteTestPack(t, dir, a, objs[:3], Options{})
	spWriteTestPack(t, dir, a, objs[3:], Options{})
	opened := 0
	openWindowHook = func(string) { opened++ }
	defer func() { openWindowHook = nil }()
	s := spOpenTestPacks(t, dir, a)
	if opened != 0 {
		t.Fatalf("Open opened %d packs, want none before the first use", opened)
	}
	spCheckGet(t, s, objs[4])
	if opened != 2 {
		t.Fatalf("the first Get opened %d packs, want 2", opened)
	}
	for _, o := range objs {
		spCheckGet(t, s, o)
	}
	if opened != 2 || len(spPackNames(t, s)) != 2 {
		t.Fatalf("packs opened %d times, %d listed; want each once", opened, len(spPackNames(t, s)))
	}
}

// TestStoragePackDeferredOpenFailureIsReported: a pack directory that
// became unusable between Open and the first use (here replaced by a
// symlink) fails every lookup, listing and count with the reason; it is
// never taken for an empty store.
func TestStoragePackDeferredOpenFailureIsReported(t *testing.T) {
	a := objects.BLAKE3
	root := t.TempDir()
	dir := filepath.Join(root, "pack")
	objs := spTestObjects(t, a, 3)
	spWriteTestPack(t, dir, a, objs, Options{})
	s := spOpenTestPacks(t, dir, a)
	if err := os.Rename(dir, filepath.Join(root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Get(ctx, objs[0].ID); err == nil || errors.Is(err, objects.ErrNotFound) || !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("Get through a symlinked pack directory: %v, want the unsafe-file refusal", err)
	}
	if _, err := s.Has(ctx, objs[0].ID); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("Has: %v, want the unsafe-file refusal", err)
	}
	if err := s.List(ctx, func(objects.OID) error { return nil }); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("List: %v, want the unsafe-file refusal", err)
	}
	if err := s.ListTypes(ctx, []objects.Type{objects.TypeBlob}, func(objects.OID) error { return nil }); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("ListTypes: %v, want the unsafe-file refusal", err)
	}
	if err := s.ListSizes(ctx, func(objects.OID, int64) error { return nil }); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("ListSizes: %v, want the unsafe-file refusal", err)
	}
	// Packs and Damaged are how gc, fsck, merges and remote senders learn
	// what the store holds: "no packs, no damage" would be a lie here.
	if names, err := s.Packs(); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("Packs: %v, %v, want the unsafe-file refusal", names, err)
	}
	if d, err := s.Damaged(); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("Damaged: %v, %v, want the unsafe-file refusal", d, err)
	}
	name := spPackNames(t, spOpenTestPacks(t, filepath.Join(root, "elsewhere"), a))[0]
	if err := s.Walk(ctx, name, func(objects.OID, *objects.Object, error) error { return nil }); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("Walk through a symlinked pack directory: %v, want the unsafe-file refusal", err)
	}
	// Put right, the store opens on the next use.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "elsewhere"), dir); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		spCheckGet(t, s, o)
	}
}

// TestStoragePackFirstUseKeepsOpensListing: the first use opens the packs
// Open listed without listing the directory again (one scan per short
// command, not two); a pack committed after Open is found by the Reload a
// miss makes, as when Open opened every pack at once.
func TestStoragePackFirstUseKeepsOpensListing(t *testing.T) {
	a := objects.BLAKE3
	dir := t.TempDir()
	objs := spTestObjects(t, a, 6)
	spWriteTestPack(t, dir, a, objs[:3], Options{})
	scans := 0
	scanHook = func() { scans++ }
	defer func() { scanHook = nil }()
	s := spOpenTestPacks(t, dir, a)
	spCheckGet(t, s, objs[1])
	if scans != 1 {
		t.Fatalf("Open and the first Get listed the directory %d times, want 1", scans)
	}
	spWriteTestPack(t, dir, a, objs[3:], Options{})
	if _, err := s.Get(context.Background(), objs[4].ID); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get of an object committed after the first use: %v, want not found before a Reload", err)
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		spCheckGet(t, s, o)
	}
	if scans != 2 {
		t.Fatalf("%d listings after one Reload, want 2", scans)
	}
}
