package pack

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// TestSortForRead: ids come back in the packs' write order, the oldest
// pack first and by offset within a pack, after the ids no pack holds
// (in their given order); and reading runs in that order applies each
// delta once, every base being in the rebuilt-envelope cache.
func TestSortForRead(t *testing.T) {
	a := objects.BLAKE3
	dir := t.TempDir()
	all, runs := spTestRuns(t, a, 40)
	// Two packs of runs, each a chain of deltas; the second is newer.
	old := spWriteTestPack(t, dir, a, all[:40], Options{DeltaDepth: 16})
	young := spWriteTestPack(t, dir, a, all[40:], Options{DeltaDepth: 16})
	for i, name := range []string{old, young} {
		at := time.Unix(1700000000+int64(i)*60, 0)
		if err := os.Chtimes(filepath.Join(dir, name+".idx"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	s := spOpenTestPacks(t, dir, a)
	absent := spTestEvent(t, a, 1000).ID
	loose := spTestEvent(t, a, 1001).ID
	var want []objects.OID
	want = append(want, absent, loose)
	for _, r := range runs {
		want = append(want, r.ID)
	}
	ids := slices.Clone(want[2:])
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	ids = append([]objects.OID{absent}, append(ids[:10:10], append([]objects.OID{loose}, ids[10:]...)...)...)
	s.SortForRead(ids)
	if !slices.Equal(ids, want) {
		t.Fatalf("SortForRead order:\n%v\nwant write order:\n%v", ids, want)
	}

	// Read in that order by a fresh store, each delta is applied once: its
	// base is always in the rebuilt-envelope cache. Read newest first, the
	// chains are re-applied.
	deltas := 0
	for _, p := range spCurrent(t, s) {
		for i := range p.idx.count {
			if p.isDeltaBlock(p.idx.entry(i)) {
				deltas++
			}
		}
	}
	if deltas < 30 {
		t.Fatalf("only %d of 40 runs stored as deltas", deltas)
	}
	applied := func(order []objects.OID) int64 {
		fresh := spOpenTestPacks(t, dir, a)
		for _, id := range order {
			if _, err := fresh.Get(context.Background(), id); err != nil && id.Type == objects.TypeRun {
				t.Fatal(err)
			}
		}
		return fresh.dcache.applied.Load()
	}
	if n := applied(ids); n != int64(deltas) {
		t.Fatalf("reading in SortForRead's order applied %d deltas; want each of the %d once", n, deltas)
	}
	slices.Reverse(ids)
	if n := applied(ids); n <= int64(deltas) {
		t.Fatalf("reading newest first applied %d deltas, no more than the %d stored: the test shows nothing", n, deltas)
	}
}
