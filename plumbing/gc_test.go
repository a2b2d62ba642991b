package plumbing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

func TestGCPacksLooseObjectsThenFsckClean(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		packsOn(t, r)
		ctx := context.Background()
		ids := storeChain(t, r, "heads/a", false, 40)
		ids = append(ids, storeChain(t, r, "heads/b", true, 30)...)
		run, _ := r.Refs().Read(t.Context(), "heads/a")
		att := put(t, r, jsonObject(t, r.Algo(), objects.TypeAttestation, fmt.Sprintf(
			`{"claim":{"kind":"evaluation","scores":{"acc":0.5}},"evidence_ids":[],"signature":null,"signer":"ci","target_id":%q}`, run)))
		ids = append(ids, att)
		var phases []string
		res, err := GC(ctx, r, GCOptions{Progress: func(p GCProgress) {
			if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
				phases = append(phases, p.Phase)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Objects != 82 || res.LooseRemoved != 82 || res.Consolidated || res.Packs != 2 || res.Pruned != 0 {
			t.Fatalf("gc result %+v", res)
		}
		if strings.Join(phases, ",") != "packing,verifying,removing" {
			t.Fatalf("phases %v", phases)
		}
		if n := looseCount(t, r); n != 0 {
			t.Fatalf("%d loose objects left", n)
		}
		mustReadAll(t, r.Root(), ids)
		if fr := mustFsckClean(t, r); fr.Objects != len(ids) {
			t.Fatalf("fsck saw %d objects, want %d", fr.Objects, len(ids))
		}
		// Nothing loose and few packs: a second gc does nothing.
		again, err := GC(ctx, r, GCOptions{})
		if err != nil || again.Pack != "" || again.Packs != 2 {
			t.Fatalf("second gc %+v, %v", again, err)
		}
		// repack -d consolidates everything into one pack.
		ids = append(ids, storeChain(t, r, "heads/c", false, 5)...)
		rp, err := Repack(ctx, r, RepackOptions{Delete: true})
		if err != nil {
			t.Fatal(err)
		}
		if rp.Objects != len(ids) || len(rp.PacksRemoved) != 2 || rp.Packs != 1 || looseCount(t, r) != 0 {
			t.Fatalf("repack %+v", rp)
		}
		mustReadAll(t, r.Root(), ids)
		mustFsckClean(t, r)
		// Repacking a single consolidated pack rewrites it byte for byte:
		// it must not delete itself.
		rp2, err := Repack(ctx, r, RepackOptions{Delete: true})
		if err != nil || rp2.Pack != rp.Pack || len(rp2.PacksRemoved) != 0 {
			t.Fatalf("second repack %+v, %v", rp2, err)
		}
		mustReadAll(t, r.Root(), ids)
	})
}

func TestGCConsolidatesOverPackLimit(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	var ids []objects.OID
	for i := range 4 {
		ids = append(ids, storeChain(t, r, fmt.Sprintf("heads/p%d", i), true, 3)...)
	}
	res, err := GC(context.Background(), r, GCOptions{PackLimit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Consolidated || len(res.PacksRemoved) != 4 || res.Packs != 1 || res.Objects != len(ids) {
		t.Fatalf("gc %+v", res)
	}
	mustReadAll(t, r.Root(), ids)
}

func TestRepackWithoutDeleteKeepsOldCopies(t *testing.T) {
	r := packsOn(t, newRepo(t, objects.SHA256))
	ids := storeChain(t, r, "heads/a", false, 4)
	ids = append(ids, storeChain(t, r, "heads/b", true, 4)...)
	res, err := Repack(context.Background(), r, RepackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packs != 2 || len(res.PacksRemoved) != 0 || res.LooseRemoved != 0 || looseCount(t, r) != 9 {
		t.Fatalf("repack without -d %+v", res)
	}
	mustReadAll(t, r.Root(), ids)
	mustFsckClean(t, r)
}

func TestVerifyPackFindsFlippedByte(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		storeChain(t, r, "heads/a", true, 50)
		ok, err := VerifyPack(ctx, r, VerifyPackOptions{})
		if err != nil || !ok.OK() || len(ok.Packs) != 1 || ok.Packs[0].Objects != 101 {
			t.Fatalf("sound pack: %+v, %v", ok, err)
		}
		name := ok.Packs[0].Pack
		path := filepath.Join(r.Root(), "objects", "pack", name+".pack")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x40
		os.Chmod(path, 0o644)
		if err := os.WriteFile(path, b, 0o444); err != nil {
			t.Fatal(err)
		}
		bad, err := VerifyPack(ctx, r, VerifyPackOptions{Packs: []string{name + ".idx"}})
		if err != nil || bad.OK() || !strings.Contains(bad.Packs[0].Error, name) {
			t.Fatalf("flipped byte: %+v, %v", bad, err)
		}
		fr, err := Fsck(ctx, r, FsckOptions{})
		if err != nil || fr.OK() || fr.Problems[0].Code != ProblemObjectCorrupt && fr.Problems[0].Code != ProblemStoragePack {
			t.Fatalf("fsck of a flipped byte: %+v, %v", fr, err)
		}
		if _, err := VerifyPack(ctx, r, VerifyPackOptions{Packs: []string{"pack-00"}}); err == nil {
			t.Fatal("a bad pack name was accepted")
		}
	})
}

func TestDamagedIndexStaysLocalAndIsRebuilt(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	packed := storeChain(t, r, "heads/a", true, 5)
	loose := storeChain(t, r, "heads/b", false, 5)
	name := packNames(t, r)[0]
	r.Close()
	idx := filepath.Join(r.Root(), "objects", "pack", name+".idx")
	os.Chmod(idx, 0o644)
	if err := os.WriteFile(idx, []byte("TINESIX\x00 truncated"), 0o444); err != nil {
		t.Fatal(err)
	}
	d, err := Open(r.Root())
	if err != nil {
		t.Fatalf("Open with one damaged index: %v", err)
	}
	defer d.Close()
	ctx := context.Background()
	if _, err := d.Objects().Get(ctx, loose[0]); err != nil {
		t.Fatalf("loose object beside a damaged pack: %v", err)
	}
	if _, err := d.Objects().Get(ctx, packed[0]); !errors.Is(err, objects.ErrNotFound) || !strings.Contains(err.Error(), "tine index-pack "+name) {
		t.Fatalf("object of the damaged pack: %v; want not found naming the pack and the fix", err)
	}
	fr, err := Fsck(ctx, d, FsckOptions{})
	if err != nil || fr.OK() {
		t.Fatalf("fsck: %+v, %v", fr, err)
	}
	found := false
	for _, p := range fr.Problems {
		found = found || p.Code == ProblemStoragePack && strings.Contains(p.Message, name+".idx") && strings.Contains(p.Message, "tine index-pack "+name)
	}
	if !found {
		t.Fatalf("no storage-pack problem naming %s.idx and the fix: %+v", name, fr.Problems)
	}
	if _, err := GC(ctx, d, GCOptions{Prune: true}); !errors.Is(err, ErrDamagedPacks) || !strings.Contains(err.Error(), name) {
		t.Fatalf("gc --prune beside a damaged pack: %v", err)
	}
	res, err := GC(ctx, d, GCOptions{})
	if err != nil || len(res.DamagedPacks) != 1 || !isFile(filepath.Join(d.Root(), "objects", "pack", name+".pack")) {
		t.Fatalf("gc beside a damaged pack: %+v, %v", res, err)
	}
	vp, err := VerifyPack(ctx, d, VerifyPackOptions{})
	if err != nil || vp.OK() {
		t.Fatalf("verify-pack: %+v, %v", vp, err)
	}
	ip, err := IndexPack(ctx, d, name+".idx")
	if err != nil || ip.Objects != len(packed) || !ip.Replaced {
		t.Fatalf("IndexPack = %+v, %v", ip, err)
	}
	mustFsckClean(t, d)
	mustReadAll(t, d.Root(), append(packed, loose...))
}

func TestFsckPackGarbageWarningsAndRemoval(t *testing.T) {
	// A temp file is a warning; a pack commit interrupted between its two
	// renames (its index still a temp file) is a warning that
	// --remove-stale completes, never a deletion; so is an index whose
	// pack a gc deleted before it was killed (gc deletes the pack first),
	// which --remove-stale removes.
	r := newRepo(t, objects.BLAKE3)
	ids := storeChain(t, r, "heads/a", false, 3)
	// A bulk write killed between its renames: nothing refers to it yet.
	_, extra := chainObjects(t, r.Algo(), "heads/never", 3)
	name, err := r.Packs().WritePack(context.Background(), extra, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.Root(), "objects", "pack")
	halfway := filepath.Join(dir, ".tmp-idx-crashed")
	if err := os.Rename(filepath.Join(dir, name+".idx"), halfway); err != nil {
		t.Fatal(err)
	}
	_, gone := chainObjects(t, r.Algo(), "heads/gone", 2)
	goneName, err := r.Packs().WritePack(context.Background(), gone, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, goneName+".pack"))
	tmp := filepath.Join(dir, ".tmp-pack-123")
	if err := os.WriteFile(tmp, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{halfway, tmp} {
		age(t, p, 2*DefaultStaleAfter)
	}
	r.Packs().Reload()
	fr := mustFsckClean(t, r)
	codes := map[string]int{}
	for _, w := range fr.Warnings {
		codes[w.Code]++
	}
	if codes[WarnPackGarbage] != 2 || codes[WarnTempFile] != 1 {
		t.Fatalf("warnings %+v", fr.Warnings)
	}
	fr, err = Fsck(context.Background(), r, FsckOptions{RemoveStale: true})
	if err != nil || len(fr.Warnings) != 0 || fr.RemovedTemp != 3 {
		t.Fatalf("fsck --remove-stale: %+v, %v", fr, err)
	}
	if !isFile(filepath.Join(dir, name+".idx")) {
		t.Fatal("the interrupted commit was not completed")
	}
	mustReadAll(t, r.Root(), ids)
}

func TestOpenHandleReadsAfterAnotherHandlesGC(t *testing.T) {
	r := packsOn(t, newRepo(t, objects.SHA256))
	ids := storeChain(t, r, "heads/a", false, 5)
	ids = append(ids, storeChain(t, r, "heads/b", true, 5)...)
	other, err := Open(r.Root()) // a second process's view, opened before gc
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := Repack(context.Background(), r, RepackOptions{Delete: true}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if ok, err := other.Objects().Has(context.Background(), id); !ok || err != nil {
			t.Fatalf("Has(%s) through the old handle: %v, %v", id, ok, err)
		}
		if _, err := other.Objects().Get(context.Background(), id); err != nil {
			t.Fatalf("Get through the old handle: %v", err)
		}
	}
}

func TestGCStopsAtCorruptLooseObject(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	ids := storeChain(t, r, "heads/a", false, 3)
	p, _ := r.Loose().Path(ids[0])
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("{\"encoding\":\"raw\",\"schema\":1,\"type\":\"blob\"}\ntampered"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := GC(context.Background(), r, GCOptions{})
	if err == nil || !strings.Contains(err.Error(), ids[0].String()) {
		t.Fatalf("gc over a corrupt loose object: %v", err)
	}
	if n := looseCount(t, r); n != len(ids) || len(packNames(t, r)) != 0 {
		t.Fatalf("a failed gc changed the store: %d loose, packs %v", n, packNames(t, r))
	}
	ents, _ := os.ReadDir(filepath.Join(r.Root(), "objects", "pack"))
	if len(ents) != 0 {
		t.Fatalf("a failed gc left %v behind", ents)
	}
}
