package loops_test

import (
	"context"
	"testing"

	"github.com/tinehq/tine/porcelain/loops"
)

// thousandNumeric is the loop of issue 13 item 7: the numeric strategy at
// width 2 with a target it never reaches, so every one of the 1,000 steps
// forks a branch (the default max-branches 6 prunes the rest).
func thousandNumeric(name string) loops.LoopRunOptions {
	return loops.LoopRunOptions{Name: name, Strategy: loops.LoopStrategyNumeric, Target: f64(1e6),
		Width: 2, MaxSteps: 1000, Now: loopClock()}
}

// BenchmarkLoopRun1000 records a 1,000-iteration numeric loop at width 2
// into a fresh on-disk repository; iterations/s is the target's unit
// (issue 13 item 7: at least 500).
func BenchmarkLoopRun1000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		r := newRepo(b)
		b.StartTimer()
		res, err := loops.LoopRun(context.Background(), r, thousandNumeric("k"))
		if err != nil {
			b.Fatal(err)
		}
		if res.TotalSteps != 1000 {
			b.Fatalf("%d steps, want 1000", res.TotalSteps)
		}
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
}

// BenchmarkLoopShow1000 reads that loop back (tine loop show): 1,000
// branch runs averaging ~500 event oids each, 3,000 distinct events.
func BenchmarkLoopShow1000(b *testing.B) {
	r := newRepo(b)
	if _, err := loops.LoopRun(context.Background(), r, thousandNumeric("k")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := loops.LoopShow(context.Background(), r, "k")
		if err != nil {
			b.Fatal(err)
		}
		if res.TotalSteps != 1000 {
			b.Fatalf("%d steps, want 1000", res.TotalSteps)
		}
	}
}
