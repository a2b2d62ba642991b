package pack

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
)

// BenchmarkRawBlocksFewOfLargePack asks RawBlocks for the 64 objects of
// a few blocks of a pack of 300,000 small blobs: what one round of a
// fetch from tine serve asks of a tenant whose history was packed
// together. Its cost should follow the blocks asked for, not the pack.
func BenchmarkRawBlocksFewOfLargePack(b *testing.B) {
	ctx := context.Background()
	a := objects.SHA256
	objs := tinyBlobs(a, 300000)
	st, err := Open(b.TempDir(), a)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.WritePack(ctx, objs, Options{}); err != nil {
		b.Fatal(err)
	}
	all := make([]objects.OID, len(objs))
	for i, o := range objs {
		all[i] = o.ID
	}
	// The objects of the first blocks, as a round's walk would name them.
	blocks, _, err := st.RawBlocks(ctx, all)
	if err != nil || len(blocks) < 4 {
		b.Fatalf("%d blocks, %v", len(blocks), err)
	}
	var ids []objects.OID
	for _, blk := range blocks[:4] {
		ids = append(ids, blk.IDs...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, _, err := st.RawBlocks(ctx, ids)
		if err != nil || len(got) != 4 {
			b.Fatalf("%d blocks, %v", len(got), err)
		}
	}
}
