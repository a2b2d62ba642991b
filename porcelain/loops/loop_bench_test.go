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
// into a fresh on-disk repository.
func BenchmarkLoopRun1000(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		r := newRepo(b)
		b.StartTimer()
		if _, err := loops.LoopRun(context.Background(), r, thousandNumeric("k")); err != nil {
			b.Fatal(err)
		}
	}
}
