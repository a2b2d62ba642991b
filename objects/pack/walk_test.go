package pack

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spShuffled returns objs in a random order that is not enumeration order.
func spShuffled(objs []*objects.Object, seed uint64) []*objects.Object {
	out := append([]*objects.Object(nil), objs...)
	rand.New(rand.NewPCG(seed, 3)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func TestStoragePackWalkKeepsWriteOrder(t *testing.T) {
	for _, opt := range []Options{{}, {BlockSize: -1}} {
		dir := t.TempDir()
		objs := spShuffled(spTestObjects(t, objects.BLAKE3, 300), 1)
		name := spWriteTestPack(t, dir, objects.BLAKE3, objs, opt)
		s := spOpenTestPacks(t, dir, objects.BLAKE3)
		var got []*objects.Object
		err := s.Walk(context.Background(), name, func(id objects.OID, o *objects.Object, err error) error {
			if err != nil || o == nil || o.ID != id {
				t.Fatalf("Walk gave %s: %v, %v", id, o, err)
			}
			got = append(got, o)
			return nil
		})
		if err != nil || len(got) != len(objs) {
			t.Fatalf("Walk: %d objects, %v; want %d", len(got), err, len(objs))
		}
		for i := range objs {
			if got[i].ID != objs[i].ID || string(got[i].Stored()) != string(objs[i].Stored()) {
				t.Fatalf("object %d: Walk gave %s, written %s", i, got[i].ID, objs[i].ID)
			}
		}
		stop := errors.New("stop")
		n := 0
		err = s.Walk(context.Background(), name, func(objects.OID, *objects.Object, error) error {
			if n++; n == 5 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 5 {
			t.Fatalf("Walk after fn's error: %d calls, %v", n, err)
		}
	}
}

func TestStoragePackWalkAndVerifyEachReportDamagedBlock(t *testing.T) {
	dir := t.TempDir()
	objs := spTestObjects(t, objects.SHA256, 200)
	victim := objs[77]
	name := spWriteTestPack(t, dir, objects.SHA256, objs, Options{})
	off, size := spBlockOf(t, spOpenTestPacks(t, dir, objects.SHA256), victim.ID)
	spPatchFile(t, filepath.Join(dir, name+".pack"), func(b []byte) []byte {
		b[off+size/2] ^= 0x10
		return b
	})
	s := spOpenTestPacks(t, dir, objects.SHA256)
	// The entries sharing the victim's block are the damaged ones.
	inBlock := map[objects.OID]bool{}
	for _, o := range objs {
		if o2, s2 := spBlockOf(t, s, o.ID); o2 == off && s2 == size {
			inBlock[o.ID] = true
		}
	}
	if len(inBlock) < 2 {
		t.Fatalf("the victim's block holds %d objects; the test needs several", len(inBlock))
	}
	check := func(what string, id objects.OID, o *objects.Object, err error) {
		if inBlock[id] {
			if o != nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), id.String()) {
				t.Errorf("%s of damaged %s: %v, %v", what, id, o, err)
			}
		} else if err != nil || o == nil || o.ID != id {
			t.Errorf("%s of sound %s: %v, %v", what, id, o, err)
		}
	}
	calls := 0
	err := s.Walk(context.Background(), name, func(id objects.OID, o *objects.Object, err error) error {
		calls++
		check("Walk", id, o, err)
		return nil
	})
	if err != nil || calls != len(objs) {
		t.Fatalf("Walk over a damaged block: %d calls, %v", calls, err)
	}
	var mu sync.Mutex
	seen := map[objects.OID]int{}
	n, err := s.VerifyEach(context.Background(), name, func(id objects.OID, o *objects.Object, err error) {
		mu.Lock()
		seen[id]++
		mu.Unlock()
		check("VerifyEach", id, o, err)
	})
	if n != len(objs)-len(inBlock) || !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), "does not match its trailer") || !strings.Contains(err.Error(), victim.ID.String()) {
		t.Fatalf("VerifyEach = %d, %v; want %d sound and the trailer and %s named", n, err, len(objs)-len(inBlock), victim.ID)
	}
	if len(seen) != len(objs) {
		t.Fatalf("VerifyEach reported %d objects, want %d", len(seen), len(objs))
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("VerifyEach reported %s %d times", id, k)
		}
	}
}

func TestStoragePackVerifyEachSound(t *testing.T) {
	for _, opt := range []Options{{}, {BlockSize: -1}, {BlockSize: 64 << 10}} {
		dir := t.TempDir()
		objs := spTestObjects(t, objects.BLAKE3, 500)
		big := objects.NewBlob(objects.BLAKE3, make([]byte, LargeObject+10)) // streamed block
		objs = append(objs, big)
		name := spWriteTestPack(t, dir, objects.BLAKE3, objs, opt)
		s := spOpenTestPacks(t, dir, objects.BLAKE3)
		var mu sync.Mutex
		got := map[objects.OID]string{}
		n, err := s.VerifyEach(context.Background(), name, func(id objects.OID, o *objects.Object, err error) {
			if err != nil {
				t.Errorf("VerifyEach %s: %v", id, err)
				return
			}
			mu.Lock()
			got[id] = string(o.Stored())
			mu.Unlock()
		})
		if n != len(objs) || err != nil || len(got) != len(objs) {
			t.Fatalf("VerifyEach = %d, %v (%d reported); want %d", n, err, len(got), len(objs))
		}
		for _, o := range objs {
			if got[o.ID] != string(o.Stored()) {
				t.Fatalf("VerifyEach gave other bytes for %s", o.ID)
			}
		}
		if n, err := s.Verify(context.Background(), name); n != len(objs) || err != nil {
			t.Fatalf("Verify = %d, %v", n, err)
		}
	}
}

func TestStoragePackBlockCacheConcurrentAndBounded(t *testing.T) {
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 2000)
	spWriteTestPack(t, dir, objects.BLAKE3, spShuffled(objs, 9), Options{})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 5))
			for range 1500 {
				o := objs[r.IntN(len(objs))]
				got, err := s.Get(context.Background(), o.ID)
				if err != nil || string(got.Stored()) != string(o.Stored()) {
					t.Errorf("Get(%s): %v", o.ID, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	n, bytes := s.cache.stats()
	if n == 0 || n > spCacheBlocks || bytes > spCacheBytes || len(s.cache.fifo) != n {
		t.Fatalf("cache holds %d blocks (%d in its ring), %d bytes; bounds %d, %d", n, len(s.cache.fifo), bytes, spCacheBlocks, spCacheBytes)
	}
	// A cached object must not be handed out modified: a Get copies out.
	o := objs[0]
	got, _ := s.Get(context.Background(), o.ID)
	got.Body[0] ^= 1
	spCheckGet(t, s, o)
	s.Close()
	if n, _ := s.cache.stats(); n != 0 {
		t.Fatalf("Close left %d cached blocks", n)
	}
}

func TestStoragePackDamagedBlockNeverCached(t *testing.T) {
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 100)
	name := spWriteTestPack(t, dir, objects.BLAKE3, objs, Options{})
	off, size := spBlockOf(t, spOpenTestPacks(t, dir, objects.BLAKE3), objs[10].ID)
	spPatchFile(t, filepath.Join(dir, name+".pack"), func(b []byte) []byte {
		b[off+size-1] ^= 0x01
		return b
	})
	s := spOpenTestPacks(t, dir, objects.BLAKE3)
	for range 2 {
		if _, err := s.Get(context.Background(), objs[10].ID); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get of a damaged object: %v", err)
		}
	}
	if n, _ := s.cache.stats(); n != 0 {
		t.Fatalf("a damaged block was cached (%d blocks)", n)
	}
}
