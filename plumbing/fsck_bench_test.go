package plumbing

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// BenchmarkFsck checks a repository of about 4000 objects: chains of 16
// events with a blob each and a run per chain, plus a ref per run.
func BenchmarkFsck(b *testing.B) {
	ctx := context.Background()
	r := newRepo(b, objects.BLAKE3)
	var batch []*objects.Object
	for c := 0; c < 120; c++ {
		var evs []objects.OID
		for i := 0; i < 16; i++ {
			blob := objects.NewBlob(r.Algo(), []byte(fmt.Sprintf("blob %d %d", c, i)))
			ev := jsonObject(b, r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","output_blob":%q,"parent_ids":%s}`, blob.ID, oidList(evs[max(0, len(evs)-1):])))
			batch = append(batch, blob, ev)
			evs = append(evs, ev.ID)
		}
		batch = append(batch, chainRun(b, r.Algo(), evs))
	}
	if err := objects.PutAll(ctx, r.Objects(), batch); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Fsck(ctx, r, FsckOptions{})
		if err != nil || !res.OK() || res.Objects != len(batch) {
			b.Fatalf("fsck: %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(len(batch)), "objects")
}
