package pack

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// spWriteTestPack writes objs as one pack in dir and returns its name.
func spWriteTestPack(t *testing.T, dir string, a objects.Algo, objs []*objects.Object, opt Options) string {
	t.Helper()
	w, err := NewWriter(dir, a, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := w.Add(o); err != nil {
			t.Fatalf("Add(%s): %v", o.ID, err)
		}
	}
	name, err := w.Commit()
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return name
}

// spOpenTestPacks opens the pack store in dir or fails the test.
func spOpenTestPacks(t *testing.T, dir string, a objects.Algo) *Store {
	t.Helper()
	s, err := Open(dir, a)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// spCheckGet reads want.ID from g and compares the envelope.
func spCheckGet(t *testing.T, g objects.Getter, want *objects.Object) {
	t.Helper()
	got, err := g.Get(context.Background(), want.ID)
	if err != nil {
		t.Fatalf("Get(%s): %v", want.ID, err)
	}
	if got.ID != want.ID || !bytes.Equal(got.Stored(), want.Stored()) {
		t.Fatalf("Get(%s) returned other bytes", want.ID)
	}
}

func TestStoragePackRoundTrip(t *testing.T) {
	variants := map[string]Options{"blocks": {}, "frames": {BlockSize: -1}, "big-blocks": {BlockSize: 64 << 10}}
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		for vname, opt := range variants {
			t.Run(string(a)+"/"+vname, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "pack")
				objs := spTestObjects(t, a, 700)
				name := spWriteTestPack(t, dir, a, append(objs, objs[:50]...), opt)
				if !strings.HasPrefix(name, "pack-") || len(name) != 69 {
					t.Fatalf("pack name %q", name)
				}
				s := spOpenTestPacks(t, dir, a)
				r := rand.New(rand.NewPCG(1, 2))
				for range 2000 { // random reads, cache misses and hits mixed
					spCheckGet(t, s, objs[r.IntN(len(objs))])
				}
				for _, o := range objs {
					if ok, err := s.Has(context.Background(), o.ID); !ok || err != nil {
						t.Fatalf("Has(%s) = %v, %v", o.ID, ok, err)
					}
				}
				var listed []objects.OID
				s.List(context.Background(), func(id objects.OID) error { listed = append(listed, id); return nil })
				if len(listed) != len(objs) {
					t.Fatalf("List: %d ids, want %d", len(listed), len(objs))
				}
				for i := 1; i < len(listed); i++ {
					if listed[i-1].Compare(listed[i]) >= 0 {
						t.Fatalf("List not sorted at %d", i)
					}
				}
				n, err := s.Verify(context.Background(), name)
				if err != nil || n != len(objs) {
					t.Fatalf("Verify = %d, %v; want %d, nil", n, err, len(objs))
				}
			})
		}
	}
}

func TestStoragePackNotFoundAndOtherAlgo(t *testing.T) {
	dir := t.TempDir()
	o := objects.NewBlob(objects.BLAKE3, []byte("x"))
	spWriteTestPack(t, dir, objects.BLAKE3, []*objects.Object{o}, Options{})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	for _, id := range []objects.OID{objects.NewBlob(objects.BLAKE3, []byte("y")).ID, {Type: objects.TypeEvent, Algo: objects.BLAKE3, Digest: o.ID.Digest},
		{Type: objects.TypeBlob, Algo: objects.SHA256, Digest: o.ID.Digest}} {
		if _, err := s.Get(context.Background(), id); !errors.Is(err, objects.ErrNotFound) || !strings.Contains(err.Error(), id.String()) {
			t.Fatalf("Get(%s): %v; want ErrNotFound naming it", id, err)
		}
		if ok, err := s.Has(context.Background(), id); ok || err != nil {
			t.Fatalf("Has(%s) = %v, %v", id, ok, err)
		}
	}
	if err := DamageError(spDamaged(t, spOpenTestPacks(t, dir, objects.SHA256))); !errors.Is(err, ErrAlgo) {
		t.Fatalf("opening blake3 packs as sha256: %v; want ErrAlgo", err)
	}
	w, err := NewWriter(dir, objects.BLAKE3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Add(objects.NewBlob(objects.SHA256, []byte("z"))); !errors.Is(err, objects.ErrAlgoMismatch) {
		t.Fatalf("Add of a sha256 object to a blake3 pack: %v", err)
	}
}

func TestStoragePackLargeObjects(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	noise := make([]byte, 3*LargeObject)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	text := bytes.Repeat([]byte("a line of a long log file\n"), 2*LargeObject/26)
	objs := []*objects.Object{objects.NewBlob(objects.SHA256, noise), objects.NewBlob(objects.SHA256, text), spTestEvent(t, objects.SHA256, 1)}
	name := spWriteTestPack(t, dir, objects.SHA256, objs, Options{})
	s := spOpenTestPacks(t, dir, objects.SHA256)
	for _, o := range objs {
		spCheckGet(t, s, o)
	}
	if n, err := s.Verify(context.Background(), name); err != nil || n != 3 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
	fi, err := os.Stat(filepath.Join(dir, name+".pack"))
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(len(noise)) + int64(len(text))/4; fi.Size() > max {
		t.Fatalf("pack of %d bytes: the text blob was not compressed", fi.Size())
	}
}

func TestStoragePackSeveralPacks(t *testing.T) {
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 300)
	first := spWriteTestPack(t, dir, objects.BLAKE3, objs[:200], Options{})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	// A second pack, overlapping the first, written through the store.
	second, err := s.WritePack(context.Background(), objs[150:], Options{BlockSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	// A third one written by "another process", found by Reload.
	extra := []*objects.Object{objects.NewBlob(objects.BLAKE3, []byte("from elsewhere"))}
	third := spWriteTestPack(t, dir, objects.BLAKE3, extra, Options{})
	if _, err := s.Get(context.Background(), extra[0].ID); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get before Reload: %v", err)
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := spPackNames(t, s); len(got) != 3 || got[0] != third || got[1] != second || got[2] != first {
		t.Fatalf("search order %v, want %v", got, []string{third, second, first})
	}
	for _, o := range append(objs, extra...) {
		spCheckGet(t, s, o)
	}
	n := 0
	s.List(context.Background(), func(objects.OID) error { n++; return nil })
	if n != len(objs)+1 {
		t.Fatalf("List: %d ids, want %d (deduplicated)", n, len(objs)+1)
	}
	// A fresh open sees the same three packs, newest index first.
	if got := spPackNames(t, spOpenTestPacks(t, dir, objects.BLAKE3)); len(got) != 3 {
		t.Fatalf("reopened store has packs %v", got)
	}
	// Removing a pack (as gc would, index first) makes Reload forget it.
	os.Remove(filepath.Join(dir, third+".idx"))
	os.Remove(filepath.Join(dir, third+".pack"))
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Has(context.Background(), extra[0].ID); ok {
		t.Fatal("object of a removed pack still found")
	}
	spCheckGet(t, s, objs[0])
}

func TestStoragePackEmptyAndMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "objects", "pack")
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	if len(spPackNames(t, s)) != 0 {
		t.Fatal("missing dir has packs")
	}
	name, err := s.WritePack(context.Background(), nil, Options{})
	if name != "" || err != nil {
		t.Fatalf("WritePack(nil) = %q, %v", name, err)
	}
	w, err := NewWriter(dir, objects.BLAKE3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if name, err := w.Commit(); name != "" || err != nil {
		t.Fatalf("empty Commit = %q, %v", name, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("empty pack left %d files", len(ents))
	}
}

func TestStoragePackRemoveGarbage(t *testing.T) {
	// A pack without its index is never deleted, however old: its index
	// may have been lost while refs still need its objects. A commit
	// interrupted between its renames (the index still a temp file) is
	// completed; other old temp files are unfinished writes and go.
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 30)
	keep := spWriteTestPack(t, dir, objects.BLAKE3, objs[:10], Options{})
	orphan := spWriteTestPack(t, dir, objects.BLAKE3, objs[10:20], Options{})
	os.Remove(filepath.Join(dir, orphan+".idx")) // a lost index
	halfway := spWriteTestPack(t, dir, objects.BLAKE3, objs[20:], Options{})
	tmpIdx := filepath.Join(dir, objects.TempPrefix+"idx-crashed")
	if err := os.Rename(filepath.Join(dir, halfway+".idx"), tmpIdx); err != nil { // a crash between the renames
		t.Fatal(err)
	}
	w, err := NewWriter(dir, objects.BLAKE3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Add(objs[0]) // a writer still running: its temp file is recent
	defer w.Abort()
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	if got := spDamaged(t, s); len(got) != 2 || !errors.Is(got[0].Err, ErrNoIndex) {
		t.Fatalf("Damaged = %v; want both packs without an index", got)
	}
	past := time.Now().Add(-time.Hour)
	if n, err := s.RemoveGarbage(context.Background(), past); n != 0 || err != nil {
		t.Fatalf("RemoveGarbage(an hour ago) = %d, %v; want nothing removed", n, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{filepath.Join(dir, orphan+".pack"), tmpIdx} {
		os.Chtimes(p, old, old)
	}
	if n, err := s.RemoveGarbage(context.Background(), past); n != 1 || err != nil {
		t.Fatalf("RemoveGarbage = %d, %v; want the interrupted commit completed", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, orphan+".pack")); err != nil {
		t.Fatalf("pack without index removed: %v", err)
	}
	if n, err := s.RemoveGarbage(context.Background(), time.Now().Add(time.Minute)); n != 1 || err != nil {
		t.Fatalf("RemoveGarbage(future) = %d, %v; want the temp file removed", n, err)
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	spCheckGet(t, s, objs[3])
	spCheckGet(t, s, objs[25])
	if got := spDamaged(t, s); len(got) != 1 || got[0].Name != orphan {
		t.Fatalf("Damaged = %v; want only %s", got, orphan)
	}
	if got := spPackNames(t, s); len(got) != 2 || !slices.Contains(got, keep) || !slices.Contains(got, halfway) {
		t.Fatalf("packs %v", got)
	}
}
