package pack

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spRebuildObjects returns objects covering every block layout: small
// events and blobs sharing blocks (one blob empty, one ending in what
// looks like nothing special), and a blob large enough to be streamed
// into a block of its own.
func spRebuildObjects(t *testing.T, a objects.Algo) []*objects.Object {
	objs := spTestObjects(t, a, 200)
	big := make([]byte, LargeObject+4096)
	rand.New(rand.NewSource(7)).Read(big)
	return append(objs, objects.NewBlob(a, big), objects.NewBlob(a, []byte("tail")))
}

func TestRebuildIndexFromPackAlone(t *testing.T) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		for _, opt := range []Options{{}, {BlockSize: -1}, {BlockSize: 64 << 10}} {
			dir := t.TempDir()
			objs := spRebuildObjects(t, a)
			name := spWriteTestPack(t, dir, a, objs, opt)
			idx := filepath.Join(dir, name+".idx")
			want, err := os.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			for _, damage := range []string{"deleted", "flipped"} {
				if damage == "deleted" {
					os.Remove(idx)
				} else {
					spPatchFile(t, idx, func(b []byte) []byte { b[len(b)/3] ^= 0x40; return b })
				}
				s := spOpenTestPacks(t, dir, a)
				if len(spDamaged(t, s)) != 1 {
					t.Fatalf("%s %v %s: Damaged = %v", a, opt, damage, spDamaged(t, s))
				}
				n, err := s.RebuildIndex(context.Background(), name, nil)
				if err != nil || n != len(objs) {
					t.Fatalf("%s %v %s: RebuildIndex = %d, %v; want %d", a, opt, damage, n, err, len(objs))
				}
				got, err := os.ReadFile(idx)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s %v %s: rebuilt index differs from the original (%v)", a, opt, damage, err)
				}
				if len(spDamaged(t, s)) != 0 {
					t.Fatalf("still damaged: %v", spDamaged(t, s))
				}
				for _, o := range objs[len(objs)-3:] {
					spCheckGet(t, s, o)
				}
			}
		}
	}
}

func TestRebuildIndexBlobHoldingAHeader(t *testing.T) {
	// A blob whose bytes hold a blob envelope header reads, without an
	// index, as two blobs as well: a damaged index whose keys survive, or a
	// reference to the whole blob, settles it; two equally good cuts are
	// refused, never guessed.
	dir := t.TempDir()
	hdr := "{\"encoding\":\"raw\",\"schema\":1,\"type\":\"blob\"}\n"
	tricky := objects.NewBlob(objects.BLAKE3, []byte("before\n"+hdr+"after"))
	objs := []*objects.Object{tricky, objects.NewBlob(objects.BLAKE3, []byte("next"))}
	name := spWriteTestPack(t, dir, objects.BLAKE3, objs, Options{})
	idx := filepath.Join(dir, name+".idx")
	want, _ := os.ReadFile(idx)
	spPatchFile(t, idx, func(b []byte) []byte { b[len(b)-1] ^= 1; return b }) // every key survives
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	if _, err := s.RebuildIndex(context.Background(), name, nil); err != nil {
		t.Fatalf("RebuildIndex with surviving keys: %v", err)
	}
	if got, _ := os.ReadFile(idx); !bytes.Equal(got, want) {
		t.Fatal("rebuilt index differs")
	}
	os.Remove(idx)
	s.Reload()
	referenced := func(id objects.OID) bool { return id == tricky.ID }
	if n, err := s.RebuildIndex(context.Background(), name, referenced); err != nil || n != 2 {
		t.Fatalf("RebuildIndex with the blob referenced = %d, %v", n, err)
	}
	if got, _ := os.ReadFile(idx); !bytes.Equal(got, want) {
		t.Fatal("rebuilt index differs")
	}
	spCheckGet(t, s, tricky)

	// "a", "b", "c" back to back, with both "a+b" and "b+c" referenced:
	// two cuts explain one reference each with two envelopes.
	dir = t.TempDir()
	abc := []*objects.Object{objects.NewBlob(objects.BLAKE3, []byte("a")), objects.NewBlob(objects.BLAKE3, []byte("b")), objects.NewBlob(objects.BLAKE3, []byte("c"))}
	name = spWriteTestPack(t, dir, objects.BLAKE3, abc, Options{})
	os.Remove(filepath.Join(dir, name+".idx"))
	ab, bc := objects.NewBlob(objects.BLAKE3, []byte("a"+hdr+"b")), objects.NewBlob(objects.BLAKE3, []byte("b"+hdr+"c"))
	s = spOpenTestPacks(t, dir, objects.BLAKE3)
	tie := func(id objects.OID) bool { return id == ab.ID || id == bc.ID }
	if _, err := s.RebuildIndex(context.Background(), name, tie); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("RebuildIndex of a tie: %v; want ErrAmbiguous", err)
	}
	if _, err := os.Stat(filepath.Join(dir, name+".idx")); err == nil {
		t.Fatal("an ambiguous rebuild wrote an index")
	}
	if n, err := s.RebuildIndex(context.Background(), name, nil); err != nil || n != 3 {
		t.Fatalf("RebuildIndex with nothing referenced = %d, %v; want the finest cut", n, err)
	}
}

func TestRebuildIndexRefusesDamagedPack(t *testing.T) {
	dir := t.TempDir()
	name := spWriteTestPack(t, dir, objects.BLAKE3, spTestObjects(t, objects.BLAKE3, 20), Options{})
	os.Remove(filepath.Join(dir, name+".idx"))
	spPatchFile(t, filepath.Join(dir, name+".pack"), func(b []byte) []byte { b[40] ^= 1; return b })
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	if _, err := s.RebuildIndex(context.Background(), name, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("RebuildIndex of a damaged pack: %v; want ErrCorrupt", err)
	}
	if _, err := s.RebuildIndex(context.Background(), "pack-00", nil); err == nil {
		t.Fatal("a bad pack name was accepted")
	}
}
