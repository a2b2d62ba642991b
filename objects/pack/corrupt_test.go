package pack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spPatchFile rewrites a read-only pack file with change applied.
func spPatchFile(t *testing.T, path string, change func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, change(data), 0o444); err != nil {
		t.Fatal(err)
	}
}

// spBlockOf returns the offset and size of the block holding id.
func spBlockOf(t *testing.T, s *Store, id objects.OID) (int64, int64) {
	t.Helper()
	p := spCurrent(t, s)[0]
	i, ok := p.idx.find(spKeyOf(id))
	if !ok {
		t.Fatalf("%s not in the pack", id)
	}
	e := p.idx.entry(i)
	return int64(e.off), int64(e.size)
}

func TestStoragePackCorruptByteNamesObject(t *testing.T) {
	for _, opt := range []Options{{}, {BlockSize: -1}} {
		dir := t.TempDir()
		objs := spTestObjects(t, objects.BLAKE3, 100)
		victim := objs[37]
		name := spWriteTestPack(t, dir, objects.BLAKE3, objs, opt)
		off, size := spBlockOf(t, spOpenTestPacks(t, dir, objects.BLAKE3), victim.ID)
		spPatchFile(t, filepath.Join(dir, name+".pack"), func(b []byte) []byte {
			b[off+size/2] ^= 0x40
			return b
		})
		s := spOpenTestPacks(t, dir, objects.BLAKE3) // the trailer is only checked by Verify
		_, err := s.Get(context.Background(), victim.ID)
		if !errors.Is(err, ErrCorrupt) || !objects.HasReason(err, objects.ReasonEnvelopeOidMismatch) ||
			!strings.Contains(err.Error(), victim.ID.String()) {
			t.Fatalf("Get of a damaged object: %v; want ErrCorrupt and oid-mismatch naming it", err)
		}
		spCheckGet(t, s, objs[90]) // other blocks are unaffected
		n, err := s.Verify(context.Background(), name)
		if !errors.Is(err, ErrCorrupt) || n >= len(objs) {
			t.Fatalf("Verify of a damaged pack = %d, %v", n, err)
		}
	}
}

func TestStoragePackForgedEnvelopeRehashed(t *testing.T) {
	// A block whose CRC is right but whose envelope is not the object's:
	// only the re-hash can catch it.
	dir := t.TempDir()
	o := objects.NewBlob(objects.SHA256, []byte("precious"))
	w, err := NewWriter(dir, objects.SHA256, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.add(o.ID, []byte(`{"encoding":"raw","schema":1,"type":"blob"}`+"\n"), []byte("precioux")); err != nil {
		t.Fatal(err)
	}
	name, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	s := spOpenTestPacks(t, dir, objects.SHA256)
	if _, err := s.Get(context.Background(), o.ID); !objects.HasReason(err, objects.ReasonEnvelopeOidMismatch) || !strings.Contains(err.Error(), o.ID.String()) {
		t.Fatalf("Get of a forged entry: %v", err)
	}
	if _, err := s.Verify(context.Background(), name); !objects.HasReason(err, objects.ReasonEnvelopeOidMismatch) {
		t.Fatalf("Verify of a forged entry: %v", err)
	}
}

func TestStoragePackDamagedFilesRefused(t *testing.T) {
	cases := map[string]struct {
		ext    string
		change func([]byte) []byte
	}{
		"index byte":      {".idx", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }},
		"index truncated": {".idx", func(b []byte) []byte { return b[:len(b)-1] }},
		"index empty":     {".idx", func(b []byte) []byte { return nil }},
		"index extended":  {".idx", func(b []byte) []byte { return append(b, 0) }},
		"pack truncated":  {".pack", func(b []byte) []byte { return b[:len(b)-7] }},
		"pack trailer":    {".pack", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		"pack header":     {".pack", func(b []byte) []byte { b[2] = 'X'; return b }},
		"pack empty":      {".pack", func(b []byte) []byte { return nil }},
	}
	for cname, c := range cases {
		t.Run(cname, func(t *testing.T) {
			dir := t.TempDir()
			name := spWriteTestPack(t, dir, objects.BLAKE3, spTestObjects(t, objects.BLAKE3, 40), Options{})
			path := filepath.Join(dir, name+c.ext)
			objs := spTestObjects(t, objects.BLAKE3, 40)
			spPatchFile(t, path, c.change)
			// The pack is skipped and remembered, not silently ignored:
			// the store opens, and a lookup that misses names it.
			s, err := Open(dir, objects.BLAKE3)
			if err != nil {
				t.Fatalf("Open: %v; want the damaged pack skipped", err)
			}
			defer s.Close()
			if err := DamageError(spDamaged(t, s)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Damaged: %v; want ErrCorrupt naming %s", err, path)
			}
			_, err = s.Get(context.Background(), objs[0].ID)
			if !errors.Is(err, objects.ErrNotFound) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "tine index-pack "+name) {
				t.Fatalf("Get of an object of the damaged pack: %v; want not found naming %s and tine index-pack", err, name)
			}
		})
	}
}

func TestStoragePackVerifyTiling(t *testing.T) {
	// A pack with bytes no entry references is refused by Verify even when
	// its checksums are consistent: rebuild the trailer and the index.
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 30)
	name := spWriteTestPack(t, dir, objects.BLAKE3, objs, Options{})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	p := spCurrent(t, s)[0]
	if err := p.checkTiling(); err != nil {
		t.Fatalf("sound pack: %v", err)
	}
	entries := make([]spEntry, p.idx.count)
	for i := range entries {
		entries[i] = p.idx.entry(i)
	}
	entries[0].off += 1 // points into the middle of nowhere
	x, err := parseSPIndex(encodeSPIndex(objects.BLAKE3, entries, p.idx.packSum[:]), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	bad := &spPack{name: name, algo: objects.BLAKE3, idx: x, f: p.f, size: p.size}
	if err := bad.checkTiling(); err == nil {
		t.Fatal("checkTiling accepted a shifted block")
	}
}

func TestStoragePackUnsafeFiles(t *testing.T) {
	dir := t.TempDir()
	name := spWriteTestPack(t, dir, objects.BLAKE3, spTestObjects(t, objects.BLAKE3, 3), Options{})
	idx := filepath.Join(dir, name+".idx")
	if err := os.Link(idx, filepath.Join(t.TempDir(), "x")); err != nil {
		t.Skip("no hard links here")
	}
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	if err := DamageError(spDamaged(t, s)); !errors.Is(err, objects.ErrUnsafeFile) {
		t.Fatalf("hard-linked index: %v; want ErrUnsafeFile", err)
	}
}
