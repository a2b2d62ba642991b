package runs

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/plumbing"
)

// Benchmarks of the history verbs at 1k, 10k and 30k events (the
// whole-process figures against git are in the README's Performance
// section):
//
//	go test -bench 'Log|Diff' -benchmem ./porcelain/runs
//
// log -n 20 should stay flat as the run grows (the history index gives
// the newest events without the run object); so should diff of two runs
// differing in their last 100 events (the shared events' totals come
// from the index's sums, and the tool paths are shown from where they
// part), unless asked for the JSON's whole lists; log --graph --all
// over 50 runs sharing one history grows with the events it shows (read
// from the catalog, not from the objects).

var (
	benchSizes   = []int{1000, 10000}
	historySizes = []int{1000, 10000, 30000}
)

// indexHistory brings the history index up to date before a timed loop,
// as the writers do after each write.
func indexHistory(b *testing.B, r *plumbing.Repo) {
	b.Helper()
	if _, err := UpdateHistory(context.Background(), r); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkLogLimit20(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := lazyRepo(b)
			writeChain(b, r, "heads/main", nil, n, "m", false)
			indexHistory(b, r)
			b.ResetTimer()
			for b.Loop() {
				if _, err := Log(context.Background(), r, LogOptions{Rev: "heads/main", Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLogAncestor20 is log -n 20 of heads/main~10 whose reflog holds
// that run: it should stay flat as the run grows, like log -n 20.
func BenchmarkLogAncestor20(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := lazyRepo(b)
			base := writeChain(b, r, "heads/main", nil, n-10, "m", false)
			writeChain(b, r, "heads/main", base, 10, "n", false)
			b.ResetTimer()
			for b.Loop() {
				if _, err := Log(context.Background(), r, LogOptions{Rev: "heads/main~10", Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDiff100Divergent is diff of a run of n events and a fork of
// it at event n-100 that holds 100 others, indexed as the writers index
// them (the shared run first): "N" as `tine diff` asks (DiffOptions.Brief:
// counts and the tool paths from where they part), "N-json" with the
// whole lists `tine diff --json` prints.
func BenchmarkDiff100Divergent(b *testing.B) {
	for _, n := range historySizes {
		r := lazyRepo(b)
		shared := writeChain(b, r, "heads/base", nil, n-100, "s", false)
		indexHistory(b, r)
		writeChain(b, r, "heads/main", shared, 100, "a", false)
		writeChain(b, r, "experiments/b", shared, 100, "b", false)
		indexHistory(b, r)
		for _, json := range []bool{false, true} {
			name := fmt.Sprint(n)
			if json {
				name += "-json"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if _, err := DiffRevisions(context.Background(), r, "heads/main", "experiments/b", DiffOptions{Brief: !json}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLogGraphAll50Runs is log --graph --all over a run of n events
// and 49 forks of 2 events at k*n/50 from its tip, at 1k, 10k and 30k
// events: from the catalog (brought up to date before the timer starts,
// as the writers leave it) and, as "direct", reading every run and event.
func BenchmarkLogGraphAll50Runs(b *testing.B) {
	for _, n := range []int{1000, 10000, 30000} {
		r := lazyRepo(b)
		base := writeChain(b, r, "heads/main", nil, n, "m", false)
		step := n / 50
		for k := 1; k < 50; k++ {
			writeChain(b, r, fmt.Sprintf("experiments/f%02d", k), base[:n-k*step], 2, fmt.Sprint("f", k), false)
		}
		if err := RefreshIndex(context.Background(), r); err != nil {
			b.Fatal(err)
		}
		for _, direct := range []bool{false, true} {
			name := fmt.Sprint(n)
			if direct {
				name += "-direct"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if _, err := Log(context.Background(), r, LogOptions{All: true, Graph: true, Direct: direct}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
