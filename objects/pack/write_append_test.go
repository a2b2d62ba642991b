package pack

import (
	"context"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spDirBytes returns the bytes of the files in dir.
func spDirBytes(t testing.TB, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// spChainOf returns the chain length of id in s.
func spChainLen(s *Store, id objects.OID) int { return len(s.chainOf(spKeyOf(id))) - 1 }

func TestStoragePackAppendChain(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	const n = 600
	all, runs := spTestRuns(t, a, n)
	dir := t.TempDir()
	s := spOpenTestPacks(t, dir, a)
	var base objects.OID
	merges := 0
	for i := range n {
		if _, err := s.WriteAppendPack(ctx, all[2*i:2*i+2], base); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		base = runs[i].ID
		// Deltas follow the Fenwick rule: run i is at position i.
		if d := spChainLen(s, base); d != bits.OnesCount(uint(i)) {
			t.Fatalf("run %d: chain of %d deltas, want %d", i, d, bits.OnesCount(uint(i)))
		}
		res, err := s.MergeSmall(ctx, 8)
		if err != nil {
			t.Fatalf("merge after append %d: %v", i, err)
		}
		if res.Pack != "" {
			merges++
		}
		if len(spPackNames(t, s)) > 9 {
			t.Fatalf("%d packs after a merge", len(spPackNames(t, s)))
		}
	}
	if merges == 0 {
		t.Fatal("no merge happened")
	}
	cold := spOpenTestPacks(t, dir, a)
	for _, o := range all {
		spCheckGet(t, cold, o)
	}
	for _, name := range spPackNames(t, cold) {
		if _, err := cold.Verify(ctx, name); err != nil {
			t.Fatalf("Verify(%s): %v", name, err)
		}
	}
	// Whole snapshots would cost the sum of the runs' sizes.
	var whole int64
	for _, r := range runs {
		whole += int64(len(r.Stored()))
	}
	if got := spDirBytes(t, dir); got*4 > whole {
		t.Fatalf("%d bytes stored for %d bytes of snapshots", got, whole)
	}
}

func TestStoragePackAppendWholeWithoutPackedBase(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	all, runs := spTestRuns(t, a, 3)
	s := spOpenTestPacks(t, t.TempDir(), a)
	// Run 1's base (run 0) is not packed: it is stored whole.
	if _, err := s.WriteAppendPack(ctx, all[2:4], runs[0].ID); err != nil {
		t.Fatal(err)
	}
	if d := spChainLen(s, runs[1].ID); d != 0 {
		t.Fatalf("chain of %d deltas, want a whole run", d)
	}
	spCheckGet(t, s, runs[1])
}
