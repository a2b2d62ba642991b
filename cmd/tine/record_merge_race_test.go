//go:build unix

package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestRecordConcurrentBesideMerges starts 16 tine records at once, three
// times, onto a run whose appends already left plumbing.AppendPackLimit
// storage packs, so every append merges the small packs, often the pack
// another record has just committed or another process has just listed. Every record exits 0
// and the run holds each event once; fsck is clean. Before, records
// failed (exit 74) naming the missing index of a pack that another
// record's merge had removed, though its objects were stored.
func TestRecordConcurrentBesideMerges(t *testing.T) {
	_, repo := newHarnessRepo(t)
	const seed, rounds, n = 8, 3, 16
	for i := range seed {
		if code, _, errs := runProc(t, tineCmd(t, "--repo", repo, "record", "--", "true", fmt.Sprintf("seed-%02d", i))); code != 0 {
			t.Fatalf("seed record %d: %s", i, errs)
		}
	}
	var want []string
	for round := range rounds {
		codes := make([]int, n)
		stderrs := make([]string, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			name := fmt.Sprintf("cmd-%d-%02d", round, i)
			want = append(want, name)
			cmd := tineCmd(t, "--repo", repo, "record", "--", "true", name)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[i], _, stderrs[i] = runProc(t, cmd)
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			if codes[i] != 0 {
				t.Errorf("round %d, record %d: exit %d: %s", round, i, codes[i], stderrs[i])
			}
		}
	}
	run := loadRun(t, repo, "heads/main")
	var got []string
	for _, e := range run.Events {
		// argv is "true,<name>"
		if _, name, _ := strings.Cut(attr(e, "argv"), ","); strings.HasPrefix(name, "cmd-") {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("run holds %v, want each record once: %v", got, want)
	}
	fsckClean(t, repo)
}
