package pack

import (
	"context"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRawBlocksLeavesOutSharedBlock: a block is handed out only when
// every object it holds is asked for, whichever of them is not (its
// first, one in the middle, its last): the others of that block stay
// uncovered, and every other block is still handed out.
func TestRawBlocksLeavesOutSharedBlock(t *testing.T) {
	ctx := context.Background()
	a := objects.SHA256
	st, err := Open(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	objs := tinyBlobs(a, 2000)
	if _, err := st.WritePack(ctx, objs, Options{}); err != nil {
		t.Fatal(err)
	}
	all := make([]objects.OID, len(objs))
	for i, o := range objs {
		all[i] = o.ID
	}
	full, _, err := st.RawBlocks(ctx, all)
	if err != nil || len(full) < 3 {
		t.Fatalf("%d blocks, %v", len(full), err)
	}
	shared := full[1].IDs
	for _, skip := range []int{0, len(shared) / 2, len(shared) - 1} {
		var ids []objects.OID
		for _, id := range all {
			if id != shared[skip] {
				ids = append(ids, id)
			}
		}
		blocks, covered, err := st.RawBlocks(ctx, ids)
		if err != nil || len(blocks) != len(full)-1 {
			t.Fatalf("without object %d of a block: %d blocks of %d, %v", skip, len(blocks), len(full), err)
		}
		for _, b := range blocks {
			if slices.Contains(b.IDs, shared[(skip+1)%len(shared)]) {
				t.Fatalf("without object %d: the block holding it was handed out", skip)
			}
		}
		for i, id := range ids {
			if covered[i] == slices.Contains(shared, id) {
				t.Fatalf("without object %d: %s covered %v", skip, id, covered[i])
			}
		}
	}
}
