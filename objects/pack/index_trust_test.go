package pack

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spDamagedKeyPack writes a pack of 40 objects and flips a bit in the
// middle of victim's index key (its first byte kept, so the fan-out still
// matches): the index now lists a phantom oid instead of victim's, and
// only the index's full verification can tell. It returns the directory,
// the pack's name, the objects, victim's index and the phantom oid.
func spDamagedKeyPack(t *testing.T) (string, string, []*objects.Object, int, objects.OID) {
	t.Helper()
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 40)
	name := spWriteTestPack(t, dir, objects.BLAKE3, objs, Options{})
	victim := 17
	x := spCurrent(t, spOpenTestPacks(t, dir, objects.BLAKE3))[0].idx
	i, ok := x.find(spKeyOf(objs[victim].ID))
	if !ok {
		t.Fatal("victim not indexed")
	}
	phantom := objs[victim].ID
	phantom.Digest[16] ^= 0x08
	spPatchFile(t, filepath.Join(dir, name+".idx"), func(b []byte) []byte {
		b[spIndexHeader+spFanout+i*spKeySize+16] ^= 0x08
		return b
	})
	return dir, name, objs, victim, phantom
}

func TestStoragePackDamagedIndexKeyNeverBelieved(t *testing.T) {
	ctx := context.Background()
	dir, name, objs, victim, phantom := spDamagedKeyPack(t)

	// Has: the phantom key is in the index, but an unverified index is
	// never believed about presence (a writer would skip the object).
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	if ok, err := s.Has(ctx, phantom); ok || err != nil {
		t.Fatalf("Has(phantom) = %v, %v; a damaged index must not be believed", ok, err)
	}
	if d := spDamaged(t, s); len(d) != 1 || d[0].Name != name || !errors.Is(d[0].Err, ErrCorrupt) {
		t.Fatalf("Damaged after Has = %v; want %s, ErrCorrupt", d, name)
	}

	// Get: the victim's key is gone; a miss is said only by verified
	// indexes, so the error names the damaged pack and the fix.
	s = spOpenTestPacks(t, dir, objects.BLAKE3)
	_, err := s.Get(ctx, objs[victim].ID)
	if !errors.Is(err, objects.ErrNotFound) || !strings.Contains(err.Error(), "tine index-pack "+name) {
		t.Fatalf("Get of the victim: %v; want not found naming the damaged pack %s", err, name)
	}

	// Enumeration trusts every key: the damaged pack lists nothing.
	s = spOpenTestPacks(t, dir, objects.BLAKE3)
	if ids, err := s.SortedIDs(); err != nil || slices.Contains(ids, phantom) || len(ids) != 0 {
		t.Fatalf("SortedIDs lists %d ids (phantom %v) from a damaged index", len(ids), slices.Contains(ids, phantom))
	}
	if len(spPackNames(t, s)) != 0 {
		t.Fatalf("Packs = %v; the damaged pack must not be listed", spPackNames(t, s))
	}
	// A listing by type trusts the keys of its type as much: the damaged
	// pack lists nothing and is reported.
	s = spOpenTestPacks(t, dir, objects.BLAKE3)
	var listed []objects.OID
	if err := s.ListTypes(ctx, []objects.Type{phantom.Type}, func(id objects.OID) error {
		listed = append(listed, id)
		return nil
	}); err != nil || len(listed) != 0 {
		t.Fatalf("ListTypes(%s) lists %d ids (phantom %v), %v, from a damaged index", phantom.Type, len(listed), slices.Contains(listed, phantom), err)
	}
	if d := spDamaged(t, s); len(d) != 1 || d[0].Name != name {
		t.Fatalf("Damaged after ListTypes = %v; want %s", d, name)
	}
}

func TestStoragePackGetHitDefersIndexVerification(t *testing.T) {
	// A found entry is read and re-hashed, which no index damage can fool,
	// so a hit needs no full verification: opening a store and reading a
	// few objects costs what it reads, not the whole index.
	ctx := context.Background()
	dir, _, objs, victim, _ := spDamagedKeyPack(t)
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	spCheckGet(t, s, objs[victim+1])
	if len(*s.damaged.Load()) != 0 || len(*s.packs.Load()) != 1 {
		t.Fatal("a Get that found its object verified the whole index")
	}
	// The first miss does verify, and the pack is damaged from then on.
	if _, err := s.Get(ctx, objs[victim].ID); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get of the victim: %v", err)
	}
	if len(*s.damaged.Load()) != 1 || len(*s.packs.Load()) != 0 {
		t.Fatal("the miss did not move the damaged pack to Damaged")
	}
}

func TestStoragePackDamagedEntryBoundsRefused(t *testing.T) {
	// An entry whose block lies outside the pack is refused by the lookup
	// itself, before any read, and the pack becomes damaged.
	ctx := context.Background()
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 40)
	name := spWriteTestPack(t, dir, objects.BLAKE3, objs, Options{})
	x := spCurrent(t, spOpenTestPacks(t, dir, objects.BLAKE3))[0].idx
	i, _ := x.find(spKeyOf(objs[5].ID))
	n := x.count
	spPatchFile(t, filepath.Join(dir, name+".idx"), func(b []byte) []byte {
		binary.BigEndian.PutUint64(b[spIndexHeader+spFanout+n*spKeySize+8*i:], 1<<40)
		return b
	})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	_, err := s.Get(ctx, objs[5].ID)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), name+".idx") || !strings.Contains(err.Error(), objs[5].ID.String()) {
		t.Fatalf("Get through an entry outside the pack: %v; want ErrCorrupt naming the index and the object", err)
	}
	if d := spDamaged(t, s); len(d) != 1 || d[0].Name != name {
		t.Fatalf("Damaged = %v; want %s", d, name)
	}
}

func TestStoragePackDamagedIndexNotRemappedByReload(t *testing.T) {
	// A combined store reloads the packs after every miss; a pack whose
	// index failed its verification is re-checked in full by Reload, not
	// mapped and retired once more each time.
	ctx := context.Background()
	dir, name, objs, victim, _ := spDamagedKeyPack(t)
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	for range 5 {
		if _, err := s.Get(ctx, objs[victim].ID); !errors.Is(err, objects.ErrNotFound) || !strings.Contains(err.Error(), name) {
			t.Fatalf("Get of the victim: %v", err)
		}
		if err := s.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.retired) > 1 {
		t.Fatalf("%d retired copies of the damaged pack after 5 reloads", len(s.retired))
	}
	if d := spDamaged(t, s); len(d) != 1 || d[0].Name != name {
		t.Fatalf("Damaged = %v; want %s", d, name)
	}
}
