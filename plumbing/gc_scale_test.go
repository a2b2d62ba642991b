package plumbing

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// TestGC100kObjectsThenFsck builds 100,000 small objects in 20 packs (the
// way bulk writes leave them) plus 2,000 loose ones, runs gc (which packs
// the loose objects and, over the pack limit, consolidates everything) and
// requires fsck to find every object and no problem. Timings are logged.
func TestGC100kObjectsThenFsck(t *testing.T) {
	if testing.Short() {
		t.Skip("100k-object gc and fsck")
	}
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	defer r.Close()
	const packs, perPack, loose = 20, 5000, 2000
	start := time.Now()
	var sample []objects.OID
	batch := make([]*objects.Object, 0, perPack)
	for p := range packs + 1 {
		batch = batch[:0]
		n := perPack
		if p == packs {
			n = loose
		}
		for i := range n {
			o := objects.NewBlob(r.Algo(), fmt.Appendf(nil, `{"step":%d,"pack":%d,"loss":0.%06d,"note":"small object for the gc scale test"}`, i, p, i*7919%1000000))
			batch = append(batch, o)
			if i%100 == 0 {
				sample = append(sample, o.ID)
			}
		}
		var err error
		if p == packs {
			err = r.Loose().PutBatch(ctx, batch)
		} else {
			err = r.Objects().(objects.BatchPutter).PutBatch(ctx, batch)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	total := packs*perPack + loose
	t.Logf("created %d objects (%d packs, %d loose) in %v", total, len(packNames(t, r)), loose, time.Since(start))

	start, cpu := time.Now(), cpuTime()
	last, phase := time.Now(), ""
	res, err := GC(ctx, r, GCOptions{Progress: func(p GCProgress) {
		if p.Phase != phase {
			t.Logf("  %s after %v", p.Phase, time.Since(last))
			last, phase = time.Now(), p.Phase
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gc: %v wall, %v cpu (%d objects into %s, %d loose removed, %d packs removed)", time.Since(start), cpuTime()-cpu, res.Objects, res.Pack, res.LooseRemoved, len(res.PacksRemoved))
	if res.Objects != total || res.Packs != 1 || !res.Consolidated || res.LooseRemoved != loose {
		t.Fatalf("gc result %+v", res)
	}

	start, cpu = time.Now(), cpuTime()
	fr := mustFsckClean(t, r)
	t.Logf("fsck: %v wall, %v cpu (%d objects)", time.Since(start), cpuTime()-cpu, fr.Objects)
	if fr.Objects != total {
		t.Fatalf("fsck saw %d objects, want %d", fr.Objects, total)
	}
	mustReadAll(t, r.Root(), sample)
}
