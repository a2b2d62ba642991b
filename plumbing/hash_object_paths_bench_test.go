package plumbing

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// BenchmarkHashObjectPaths writes 10,000 distinct ~1 KiB JSON files per
// iteration through --stdin-paths into a fresh repository, once through
// the loose store and once through a pack-writing store.
func BenchmarkHashObjectPaths(b *testing.B) {
	paths := writeFiles(b, b.TempDir(), 10000)
	for _, mode := range []string{"loose", "packed"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				r := newRepo(b, objects.BLAKE3)
				opt := HashPathsOptions{Write: true}
				if mode == "packed" {
					opt.Store = combinedStore(b, r)
				}
				b.StartTimer()
				if _, _, err := hashPaths(b, r, opt, paths); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBulkWriteAgainstGit times the same 10,000 files written by tine
// (packed) and by `git hash-object -w --stdin-paths`. It only runs with
// TINE_BENCH_GIT=1 and git on PATH; the ratio is logged, not asserted,
// since it depends on the machine.
func TestBulkWriteAgainstGit(t *testing.T) {
	if os.Getenv("TINE_BENCH_GIT") != "1" {
		t.Skip("set TINE_BENCH_GIT=1 to compare with git")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	paths := writeFiles(t, t.TempDir(), 10000)
	list := strings.Join(paths, "\n") + "\n"
	var tineT, gitT []time.Duration
	for range 5 {
		r := newRepo(t, objects.BLAKE3)
		opt := HashPathsOptions{Write: true, Store: combinedStore(t, r), Bulk: BulkOptions{MaxObjects: benchBatch()}}
		start := time.Now()
		if _, _, err := hashPaths(t, r, opt, paths); err != nil {
			t.Fatal(err)
		}
		tineT = append(tineT, time.Since(start))

		gdir := t.TempDir()
		if out, err := exec.Command(git, "init", "-q", gdir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		cmd := exec.Command(git, "-C", gdir, "hash-object", "-w", "--stdin-paths")
		cmd.Stdin = strings.NewReader(list)
		start = time.Now()
		if out, err := cmd.Output(); err != nil || strings.Count(string(out), "\n") != len(paths) {
			t.Fatalf("git hash-object: %v", err)
		}
		gitT = append(gitT, time.Since(start))
	}
	tm, gm := median(tineT), median(gitT)
	t.Logf("10,000 x ~1 KiB: tine %v, git %v, tine/git %.3f", tm, gm, float64(tm)/float64(gm))
}

// median returns the middle of ds (ds is sorted in place).
func median(ds []time.Duration) time.Duration {
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			if ds[j] < ds[i] {
				ds[i], ds[j] = ds[j], ds[i]
			}
		}
	}
	return ds[len(ds)/2]
}

// benchBatch is the batch size under test (TINE_BENCH_BATCH, default 0:
// the writer's default).
func benchBatch() int {
	n := 0
	fmt.Sscan(os.Getenv("TINE_BENCH_BATCH"), &n)
	return n
}
