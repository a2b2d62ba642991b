package plumbing

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

// allLoose requires every object r holds to be a loose file and no
// storage pack to exist: what OpenTine reads.
func allLoose(t testing.TB, r *Repo, want int) {
	t.Helper()
	if err := r.Packs().Reload(); err != nil {
		t.Fatal(err)
	}
	if packs := packNames(t, r); len(packs) != 0 {
		t.Fatalf("storage packs %v in a sha256 repository without the opt-in", packs)
	}
	if n := looseCount(t, r); n != want {
		t.Fatalf("%d loose objects, want %d", n, want)
	}
}

// TestSHA256BulkWritesStayLoose: batches of 64 objects and more (which
// went into a storage pack) are loose files in a sha256 repository.
func TestSHA256BulkWritesStayLoose(t *testing.T) {
	r := newRepo(t, objects.SHA256)
	defer r.Close()
	paths := writeFiles(t, t.TempDir(), 200)
	if _, res, err := hashPaths(t, r, HashPathsOptions{Write: true}, paths); err != nil || res.Written.Objects != 200 {
		t.Fatalf("hash-object --stdin-paths: %+v, %v", res, err)
	}
	allLoose(t, r, 200)
	mustFsckClean(t, r)
}

// TestSHA256UnpackStaysLoose: unpack installs a frame of 201 objects as
// loose files in a sha256 repository.
func TestSHA256UnpackStaysLoose(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.SHA256)
	defer r.Close()
	_, objs := chainObjects(t, objects.SHA256, "frame", 100)
	frame, _, err := objects.WritePack(objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "f.tinepack")
	if err := os.WriteFile(p, frame, 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := Unpack(ctx, r, UnpackOptions{Path: p}); err != nil || res.Objects != len(objs) {
		t.Fatalf("unpack: %+v, %v", res, err)
	}
	allLoose(t, r, len(objs))
	mustFsckClean(t, r)
}

// TestSHA256GCKeepsObjectsLooseAndWritesPacksBack: gc packs nothing in a
// sha256 repository; the objects of storage packs an older tine wrote are
// written back out loose and the packs removed, and gc says so; pruning
// still deletes old unreachable loose objects and nothing reachable.
func TestSHA256GCKeepsObjectsLooseAndWritesPacksBack(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.SHA256)
	defer r.Close()
	ids := storeChain(t, r, "heads/loose", false, 30)
	ids = append(ids, storeChain(t, r, "heads/old-tine", true, 40)...) // packed only
	ids = append(ids, storeChain(t, r, "heads/both", true, 5)...)
	both := storeChain(t, r, "heads/both", false, 5) // the same objects, loose too
	if len(both) != 11 {
		t.Fatal("chain size")
	}
	fr := mustFsckClean(t, r)
	if w := findProblem(fr.Warnings, WarnPackedOnly); w == nil || !strings.Contains(w.Message, "81 object(s) only in storage packs") {
		t.Fatalf("fsck warnings %+v, want %s for 81 objects", fr.Warnings, WarnPackedOnly)
	}
	res, err := GC(ctx, r, GCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StoragePacks || res.Pack != "" || res.LooseWritten != 81 || len(res.PacksRemoved) != 2 || res.Packs != 0 || res.LooseRemoved != 0 {
		t.Fatalf("gc %+v", res)
	}
	allLoose(t, r, len(ids))
	mustReadAll(t, r.Root(), ids)
	if fr := mustFsckClean(t, r); len(fr.Warnings) != 0 {
		t.Fatalf("fsck warnings after the write-back: %+v", fr.Warnings)
	}

	// Pruning: an unreachable old loose object goes, reachable ones stay.
	gone := objects.NewBlob(objects.SHA256, []byte("unreachable"))
	if err := r.Loose().Put(ctx, gone); err != nil {
		t.Fatal(err)
	}
	gp, _ := r.Loose().Path(gone.ID)
	age(t, gp, 2*time.Hour)
	res, err = GC(ctx, r, GCOptions{Prune: true, PruneAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 1 || res.Pack != "" || res.Reachable != len(ids) {
		t.Fatalf("gc --prune %+v", res)
	}
	allLoose(t, r, len(ids))
	mustFsckClean(t, r)
}

// TestSHA256RepackRefusesWithoutOptIn: repack names the opt-in instead
// of packing a repository OpenTine must read.
func TestSHA256RepackRefusesWithoutOptIn(t *testing.T) {
	r := newRepo(t, objects.SHA256)
	defer r.Close()
	storeChain(t, r, "heads/a", false, 3)
	_, err := Repack(context.Background(), r, RepackOptions{Delete: true})
	if !errors.Is(err, ErrStoragePacksOff) {
		t.Fatalf("repack: %v, want ErrStoragePacksOff", err)
	}
	allLoose(t, r, 7)
}

// TestStoragePacksOptInRoundTrip: the opt-in is a file beside config.json
// (which keeps OpenTine's bytes), survives reopening, lets bulk writes and
// gc use packs, and opting out brings every object back loose. blake3
// repositories refuse the setting.
func TestStoragePacksOptInRoundTrip(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.SHA256)
	defer r.Close()
	if r.StoragePacks() {
		t.Fatal("a new sha256 repository uses storage packs")
	}
	if err := r.SetStoragePacks(true); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(r.Root(), "config.json"))
	if err != nil || string(cfg) != string(ConfigBytes(objects.SHA256)) {
		t.Fatalf("config.json changed: %q, %v", cfg, err)
	}
	r2, err := Open(r.Root())
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if !r2.StoragePacks() {
		t.Fatal("the opt-in did not survive reopening")
	}
	paths := writeFiles(t, t.TempDir(), 100)
	if _, _, err := hashPaths(t, r2, HashPathsOptions{Write: true}, paths); err != nil {
		t.Fatal(err)
	}
	if n := len(packNames(t, r2)); n != 1 || looseCount(t, r2) != 0 {
		t.Fatalf("opted in: %d packs, %d loose", n, looseCount(t, r2))
	}
	if err := r2.SetStoragePacks(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(r.Root(), StoragePacksFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("opt-out left %s: %v", StoragePacksFile, err)
	}
	res, err := GC(ctx, r2, GCOptions{})
	if err != nil || res.LooseWritten != 100 {
		t.Fatalf("gc after opting out: %+v, %v", res, err)
	}
	allLoose(t, r2, 100)

	b := newRepo(t, objects.BLAKE3)
	defer b.Close()
	if !b.StoragePacks() || !errors.Is(b.SetStoragePacks(false), ErrStoragePacksFixed) {
		t.Fatal("blake3 repositories must always use storage packs")
	}
}

// TestStoragePacksFileMustBeRegular: a symlink in place of the opt-in
// file is refused (SPEC §2.1 confinement), not followed.
func TestStoragePacksFileMustBeRegular(t *testing.T) {
	r := newRepo(t, objects.SHA256)
	r.Close()
	if err := os.Symlink("/dev/null", filepath.Join(r.Root(), StoragePacksFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(r.Root()); !errors.Is(err, ErrNotConfined) {
		t.Fatalf("open with a symlinked %s: %v", StoragePacksFile, err)
	}
}

// TestSHA256WriteBackPackedDamagedKeepsPack: an object whose only copy is
// damaged stops the write-back naming it, and its pack stays.
func TestSHA256WriteBackPackedDamagedKeepsPack(t *testing.T) {
	r := newRepo(t, objects.SHA256)
	storeChain(t, r, "heads/a", true, 3)
	name := packNames(t, r)[0]
	p := filepath.Join(r.Packs().Dir(), name+".pack")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, b, 0o444); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r, err = Open(r.Root()) // a fresh process: no verified block cached from the write
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = GC(context.Background(), r, GCOptions{})
	if err == nil || !strings.Contains(err.Error(), "the pack was kept") {
		t.Fatalf("gc over a damaged pack: %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the damaged pack was removed: %v", err)
	}
}
