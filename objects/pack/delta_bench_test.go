package pack

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/tinehq/tine/objects"
)

// BenchmarkReadNewestRun reads the newest run of a run appended one event
// at a time (BENCH_CHAIN_RUNS snapshots, default 1,000, each appended as
// Store.WriteAppendPack does, small packs merged as appends merge them)
// from a freshly opened store, so each read rebuilds the delta chain from
// disk; "whole" reads the same run stored whole. chain-B/append is the
// chain's storage (events and runs) per append, snapshot-B/append what the
// runs alone cost stored whole. Each op opens the store
// (reading and checking every index) and reads the run; cpu-µs/op is the
// steadier figure on a loaded machine.
func BenchmarkReadNewestRun(b *testing.B) {
	n := 1000
	if s := os.Getenv("BENCH_CHAIN_RUNS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	a := objects.BLAKE3
	chainDir := b.TempDir()
	s, err := Open(chainDir, a)
	if err != nil {
		b.Fatal(err)
	}
	// Snapshots are built one at a time (all of them would hold the
	// square of the run's length in memory). snapshots sums what the runs
	// cost stored whole (loose run objects).
	var snapshots int64
	var base objects.OID
	var newest *objects.Object
	next := spRunBuilder(b, a)
	for range n {
		ev, run := next()
		if _, err := s.WriteAppendPack(ctx, []*objects.Object{ev, run}, base); err != nil {
			b.Fatal(err)
		}
		if _, err := s.MergeSmall(ctx, 8); err != nil {
			b.Fatal(err)
		}
		base, newest = run.ID, run
		snapshots += int64(len(run.Stored()))
	}
	s.Close()
	runs := []*objects.Object{newest}
	chainBytes := spDirBytes(b, chainDir)
	wholeDir := b.TempDir()
	w, err := NewWriter(wholeDir, a, Options{DeltaDepth: -1})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Add(runs[0]); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, dir string }{{"chain", chainDir}, {"whole", wholeDir}} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start, ops := spThreadCPU(), 0
			for b.Loop() {
				s, err := Open(c.dir, a)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Get(ctx, runs[0].ID); err != nil {
					b.Fatal(err)
				}
				s.Close()
				ops++
			}
			b.ReportMetric(float64((spThreadCPU()-start).Nanoseconds())/float64(ops)/1000, "cpu-µs/op")
			b.ReportMetric(float64(len(runs[0].Stored())), "run-bytes")
			b.ReportMetric(float64(chainBytes)/float64(n), "chain-B/append")
			b.ReportMetric(float64(snapshots)/float64(n), "snapshot-B/append")
		})
	}
}
