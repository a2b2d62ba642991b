package pack

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spTestRuns returns n events and the n run snapshots of a run appended
// one event at a time, in append order (event i, then the run listing
// events 0..i), as the record path writes them.
func spTestRuns(tb testing.TB, a objects.Algo, n int) (all, runs []*objects.Object) {
	tb.Helper()
	next := spRunBuilder(tb, a)
	for range n {
		ev, run := next()
		all = append(all, ev, run)
		runs = append(runs, run)
	}
	return all, runs
}

// spRunBuilder returns a function that returns the next event of a run
// and the run's snapshot after it, one append per call.
func spRunBuilder(tb testing.TB, a objects.Algo) func() (ev, run *objects.Object) {
	var ids []string
	return func() (*objects.Object, *objects.Object) {
		i := len(ids)
		ev := spTestEvent(tb, a, i)
		ids = append(ids, `"`+ev.ID.String()+`"`)
		body := fmt.Appendf(nil, `{"created_at":1700000000,"events":[%s],"roots":[%s],"status":"running","tips":[%s],"title":"t"}`,
			strings.Join(ids, ","), ids[0], ids[i])
		run, err := objects.NewObjectFromBody(a, objects.TypeRun, 1, body)
		if err != nil {
			tb.Fatal(err)
		}
		return ev, run
	}
}

// spPackBytes returns the size of the pack file name in dir.
func spPackBytes(t *testing.T, dir, name string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, name+".pack"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestStoragePackRunDeltas(t *testing.T) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			ctx := context.Background()
			all, runs := spTestRuns(t, a, 300)
			dir := t.TempDir()
			name := spWriteTestPack(t, dir, a, all, Options{DeltaDepth: 16})
			wholeDir := t.TempDir()
			whole := spWriteTestPack(t, wholeDir, a, all, Options{DeltaDepth: -1})
			s := spOpenTestPacks(t, dir, a)
			for _, o := range all {
				spCheckGet(t, s, o)
			}
			// A fresh store reads the newest run cold, through its chain.
			cold := spOpenTestPacks(t, dir, a)
			spCheckGet(t, cold, runs[len(runs)-1])
			p := spCurrent(t, s)[0]
			deltas := 0
			for i := range p.idx.count {
				if p.isDeltaBlock(p.idx.entry(i)) {
					deltas++
				}
			}
			// About one run in 17 starts a new chain (depth bound 16; a run
			// whose predecessor is at the bound may take an older base).
			if deltas < 300-300/16-2 || deltas == 300 {
				t.Fatalf("%d delta entries of 300 runs", deltas)
			}
			if d := spMaxChain(t, p); d > 16 {
				t.Fatalf("a chain of %d deltas, the bound is 16", d)
			}
			// 300 snapshots whole cost O(n²); as deltas about the events.
			if d, w := spPackBytes(t, dir, name), spPackBytes(t, wholeDir, whole); d*3 > w {
				t.Fatalf("pack with deltas is %d bytes, without %d: want under a third", d, w)
			}
			n, err := s.Verify(ctx, name)
			if err != nil || n != len(all) {
				t.Fatalf("Verify = %d, %v; want %d objects", n, err, len(all))
			}
			got := 0
			if err := s.Walk(ctx, name, func(id objects.OID, o *objects.Object, err error) error {
				if err != nil {
					return err
				}
				got++
				return nil
			}); err != nil || got != len(all) {
				t.Fatalf("Walk = %d, %v", got, err)
			}
		})
	}
}

// spMaxChain returns the longest delta chain of p.
func spMaxChain(t *testing.T, p *spPack) int {
	t.Helper()
	longest := 0
	for i := range p.idx.count {
		depth := 0
		for e := p.idx.entry(i); p.isDeltaBlock(e); depth++ {
			blk := make([]byte, e.size)
			if _, err := p.f.ReadAt(blk, int64(e.off)); err != nil {
				t.Fatal(err)
			}
			d, err := parseDeltaBlock(blk)
			if err != nil {
				t.Fatal(err)
			}
			j, ok := p.idx.find(d.base)
			if !ok {
				t.Fatal("base missing")
			}
			e = p.idx.entry(j)
		}
		longest = max(longest, depth)
	}
	return longest
}

// spCraftDelta writes a pack holding base whole and target as the delta
// blk returns (built from the honest instructions), and returns the store.
func spCraftDelta(t *testing.T, a objects.Algo, base, target *objects.Object, blk func(ops []byte) []byte) *Store {
	t.Helper()
	dir := t.TempDir()
	w, err := NewWriter(dir, a, Options{DeltaDepth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(base); err != nil {
		t.Fatal(err)
	}
	ops := encodeDelta(base.Stored(), target.Stored())
	w.seen[target.ID] = struct{}{}
	e := spEntry{key: spKeyOf(target.ID), length: uint32(len(target.Stored()))}
	w.deltas = append(w.deltas, spEntryBlock{e: e, blk: blk(ops)})
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return spOpenTestPacks(t, dir, a)
}

func TestStoragePackDeltaDamage(t *testing.T) {
	a := objects.BLAKE3
	ctx := context.Background()
	_, runs := spTestRuns(t, a, 3)
	base, target := runs[1], runs[2]
	key := spKeyOf(target.ID)
	length := uint32(len(target.Stored()))
	t.Run("sound", func(t *testing.T) {
		s := spCraftDelta(t, a, base, target, func(ops []byte) []byte {
			return appendDeltaBlock(nil, length, key, spKeyOf(base.ID), 1, ops)
		})
		spCheckGet(t, s, target)
	})
	t.Run("flipped insert", func(t *testing.T) {
		s := spCraftDelta(t, a, base, target, func(ops []byte) []byte {
			ops[len(ops)/2] ^= 1 // the CRC is computed over the damaged bytes
			return appendDeltaBlock(nil, length, key, spKeyOf(base.ID), 1, ops)
		})
		_, err := s.Get(ctx, target.ID)
		var fe *objects.FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), target.ID.String()) {
			t.Fatalf("Get of a damaged delta = %v, want an error naming %s", err, target.ID)
		}
	})
	t.Run("missing base", func(t *testing.T) {
		s := spCraftDelta(t, a, base, target, func(ops []byte) []byte {
			return appendDeltaBlock(nil, length, key, spKeyOf(runs[0].ID), 1, ops)
		})
		_, err := s.Get(ctx, target.ID)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "delta base is not in any storage pack") {
			t.Fatalf("Get of a delta without its base = %v", err)
		}
	})
	t.Run("short", func(t *testing.T) {
		s := spCraftDelta(t, a, base, target, func(ops []byte) []byte {
			return appendDeltaBlock(nil, length+1, key, spKeyOf(base.ID), 1, ops)
		})
		if _, err := s.Get(ctx, target.ID); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get of a delta of the wrong length = %v", err)
		}
	})
	t.Run("self", func(t *testing.T) {
		s := spCraftDelta(t, a, base, target, func(ops []byte) []byte {
			return appendDeltaBlock(nil, length, key, key, 1, ops)
		})
		if _, err := s.Get(ctx, target.ID); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get of a delta based on itself = %v", err)
		}
	})
}

func TestStoragePackDeltaCycle(t *testing.T) {
	a := objects.BLAKE3
	_, runs := spTestRuns(t, a, 3)
	x, y := runs[1], runs[2]
	dir := t.TempDir()
	w, err := NewWriter(dir, a, Options{DeltaDepth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(runs[0]); err != nil {
		t.Fatal(err)
	}
	// x's base is y and y's base is x: a read must stop, not loop.
	for _, pair := range [][2]*objects.Object{{x, y}, {y, x}} {
		w.seen[pair[0].ID] = struct{}{}
		e := spEntry{key: spKeyOf(pair[0].ID), length: uint32(len(pair[0].Stored()))}
		blk := appendDeltaBlock(nil, e.length, e.key, spKeyOf(pair[1].ID), 1, encodeDelta(pair[1].Stored(), pair[0].Stored()))
		w.deltas = append(w.deltas, spEntryBlock{e: e, blk: blk})
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	s := spOpenTestPacks(t, dir, a)
	if _, err := s.Get(context.Background(), x.ID); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "delta chain longer") {
		t.Fatalf("Get through a delta cycle = %v", err)
	}
}

func TestStoragePackDeltaRebuildIndex(t *testing.T) {
	a := objects.BLAKE3
	ctx := context.Background()
	all, _ := spTestRuns(t, a, 60)
	dir := t.TempDir()
	name := spWriteTestPack(t, dir, a, all, Options{})
	if err := os.Remove(filepath.Join(dir, name+".idx")); err != nil {
		t.Fatal(err)
	}
	s := spOpenTestPacks(t, dir, a)
	n, err := s.RebuildIndex(ctx, name, nil)
	if err != nil || n != len(all) {
		t.Fatalf("RebuildIndex = %d, %v; want %d", n, err, len(all))
	}
	for _, o := range all {
		spCheckGet(t, s, o)
	}
	if _, err := s.Verify(ctx, name); err != nil {
		t.Fatal(err)
	}
}

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("base bytes"), encodeDelta([]byte("base bytes"), []byte("base, bytes")), uint32(11))
	f.Fuzz(func(t *testing.T, base, ops []byte, rawLen uint32) {
		out, err := applyDelta(base, ops, rawLen%4096)
		if err == nil && uint32(len(out)) != rawLen%4096 {
			t.Fatalf("applyDelta built %d bytes, want %d", len(out), rawLen%4096)
		}
	})
}

func TestEncodeDeltaFork(t *testing.T) {
	_, runs := spTestRuns(t, objects.BLAKE3, 200)
	base := runs[199].Stored()
	// A fork changes a field before the event list and one after it.
	target := []byte(strings.Replace(strings.Replace(string(base), `"created_at":1700000000`, `"created_at":1800000000`, 1),
		`"status":"running"`, `"forked_from":{"event":"x"},"status":"running"`, 1))
	ops := encodeDelta(base, target)
	got, err := applyDelta(base, ops, uint32(len(target)))
	if err != nil || string(got) != string(target) {
		t.Fatalf("applyDelta: %v", err)
	}
	if len(ops) > 200 {
		t.Fatalf("%d bytes of instructions for a %d-byte fork", len(ops), len(target))
	}
}

func FuzzEncodeDelta(f *testing.F) {
	f.Add([]byte("base bytes and more base bytes"), []byte("base, bytes and more"))
	f.Fuzz(func(t *testing.T, base, target []byte) {
		ops := encodeDelta(base, target)
		got, err := applyDelta(base, ops, uint32(len(target)))
		if err != nil || string(got) != string(target) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestCommonPrefixSuffix compares the word-at-a-time scans with a byte
// loop on random pairs sharing random heads and tails.
func TestCommonPrefixSuffix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		a := make([]byte, rng.IntN(70))
		for i := range a {
			a[i] = byte('a' + rng.IntN(3))
		}
		b := append([]byte(nil), a...)
		if len(b) > 0 && rng.IntN(4) > 0 {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		b = append(b, make([]byte, rng.IntN(9))...)
		if rng.IntN(2) == 0 {
			b = append(make([]byte, rng.IntN(9)), b...)
		}
		p := 0
		for p < min(len(a), len(b)) && a[p] == b[p] {
			p++
		}
		s := 0
		for s < min(len(a), len(b)) && a[len(a)-1-s] == b[len(b)-1-s] {
			s++
		}
		if got := commonPrefix(a, b); got != p {
			t.Fatalf("commonPrefix(%q, %q) = %d, want %d", a, b, got, p)
		}
		if got := commonSuffix(a, b); got != s {
			t.Fatalf("commonSuffix(%q, %q) = %d, want %d", a, b, got, s)
		}
	}
}

// TestEncodeDeltaIndexReused builds several targets against one base
// through one kept index: each rebuilds exactly, and the index is built
// once.
func TestEncodeDeltaIndexReused(t *testing.T) {
	_, runs := spTestRuns(t, objects.BLAKE3, 200)
	base := runs[150].Stored()
	var idx deltaIndex
	for _, r := range runs[100:] {
		target := []byte(strings.Replace(string(r.Stored()), `"created_at":1700000000`, `"created_at":1800000000`, 1))
		ops := encodeDeltaIndexed(base, target, &idx)
		got, err := applyDelta(base, ops, uint32(len(target)))
		if err != nil || string(got) != string(target) {
			t.Fatalf("applyDelta: %v", err)
		}
		if len(ops) > len(target)/2 {
			t.Fatalf("%d bytes of instructions for a %d-byte target", len(ops), len(target))
		}
	}
	if len(idx) == 0 {
		t.Fatal("no index kept")
	}
}
