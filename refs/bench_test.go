package refs

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// benchTxnRefs is the number of refs BenchmarkTransaction1000 creates in
// one transaction, as bench/run.sh's ref stream does.
const benchTxnRefs = 1000

// BenchmarkTransaction1000 creates benchTxnRefs refs under one directory
// in one transaction on a fresh repository (git update-ref --stdin).
func BenchmarkTransaction1000(b *testing.B) {
	ctx := context.Background()
	g := newMem()
	targets := make([]objects.OID, benchTxnRefs)
	for i := range targets {
		targets[i] = g.run(objects.BLAKE3, fmt.Sprint("target ", i))
	}
	for b.Loop() {
		b.StopTimer()
		s := Open(b.TempDir(), objects.BLAKE3, g)
		txn := s.NewTransaction("bench")
		for i, id := range targets {
			txn.Create(fmt.Sprintf("tags/bench/%05d", i), id)
		}
		b.StartTimer()
		if err := txn.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchTxnRefs)*float64(b.N)/b.Elapsed().Seconds(), "refs/s")
}

// BenchmarkSingleUpdate moves one existing ref with a compare-and-swap,
// as one `tine update-ref REF NEW --old OLD` does, with the reflog row
// written after the rename is durable (sequential) and with the two
// fsynced together (overlapped, what a file system that keeps metadata in
// order gets; see fsorder.go). Set TMPDIR to measure a given file system.
func BenchmarkSingleUpdate(b *testing.B) {
	for _, o := range syncOrders {
		b.Run(o.name, func(b *testing.B) {
			ctx := context.Background()
			g := newMem()
			a, c := g.run(objects.BLAKE3, "a"), g.run(objects.BLAKE3, "c")
			s := Open(b.TempDir(), objects.BLAKE3, g)
			s.order = o.order
			if err := s.Create(ctx, "heads/main", a, "bench"); err != nil {
				b.Fatal(err)
			}
			cur, next := a, c
			for b.Loop() {
				if err := s.Update(ctx, "heads/main", next, cur, "bench"); err != nil {
					b.Fatal(err)
				}
				cur, next = next, cur
			}
		})
	}
}
