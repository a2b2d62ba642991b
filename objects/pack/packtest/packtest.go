// Package packtest holds test helpers over storage packs for the tests of
// packages that move raw blocks (remote/wire, remote/httpclient).
package packtest

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// RawBlocksOf writes objs into a storage pack of their own, in blocks of
// blockSize, and returns its blocks as RawBlocks hands them out, failing
// the test unless every object is in one.
func RawBlocksOf(tb testing.TB, a objects.Algo, objs []*objects.Object, blockSize int) []pack.RawBlock {
	tb.Helper()
	ctx := context.Background()
	st, err := pack.Open(tb.TempDir(), a)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := st.WritePack(ctx, objs, pack.Options{BlockSize: blockSize}); err != nil {
		tb.Fatal(err)
	}
	ids := make([]objects.OID, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	blocks, covered, err := st.RawBlocks(ctx, ids)
	if err != nil {
		tb.Fatal(err)
	}
	for i, c := range covered {
		if !c {
			tb.Fatalf("object %d is in no raw block", i)
		}
	}
	return blocks
}
