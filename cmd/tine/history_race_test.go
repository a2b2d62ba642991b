package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestHistoryIndexConcurrentWriters runs real `tine import` and `tine
// fork` processes at once, two writers on one ref and one on another,
// each refreshing the history index as it writes; then every ref's log
// and the diffs between them answered from the index equal the answers
// after the index is deleted (rebuilt from the objects), and `tine index
// status --verify` finds nothing different.
func TestHistoryIndexConcurrentWriters(t *testing.T) {
	ctx, bin, repo := procRepo(t)
	lines := func(tag string, n int) string {
		return jsonlFile(t, tag, n, func(i int) string {
			return fmt.Sprintf(`{"kind":"tool","tool":"%s","cost":%d,"attributes":{"argv":["%s","%d"]}}`, tag, i%5, tag, i)
		})
	}
	if code, _, errs := tineProc(ctx, bin, repo, "import", lines("base", 50), "--ref", "heads/main"); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	var wg sync.WaitGroup
	errc := make(chan string, 100)
	writer := func(ref, tag string, rounds int) {
		defer wg.Done()
		for i := range rounds {
			f := lines(fmt.Sprintf("%s%d", tag, i), 3)
			// A lost CAS race is the expected outcome of two writers on
			// one ref; any other failure is not.
			if code, _, errs := tineProc(ctx, bin, repo, "import", f, "--ref", ref); code != 0 && !strings.Contains(errs, "stale") && !strings.Contains(errs, "expected") && !strings.Contains(errs, "is locked") {
				errc <- fmt.Sprintf("import onto %s: %d %s", ref, code, errs)
			}
		}
	}
	wg.Add(3)
	go writer("heads/main", "a", 8)
	go writer("heads/main", "b", 8)
	go func() {
		defer wg.Done()
		if code, _, errs := tineProc(ctx, bin, repo, "fork", "heads/main", "--from", "heads/main~5", "--ref", "experiments/x"); code != 0 {
			errc <- "fork: " + errs
			return
		}
		wg.Add(1)
		writer("experiments/x", "x", 8)
	}()
	wg.Wait()
	close(errc)
	for e := range errc {
		t.Fatal(e)
	}
	views := func() string {
		return procOutputs(ctx, t, bin, repo, [][]string{
			{"log", "heads/main", "--json"}, {"log", "-n", "7", "experiments/x", "--json"},
			{"diff", "heads/main", "experiments/x", "--json"}, {"diff", "experiments/x", "heads/main"},
		})
	}
	fromIndex := views()
	code, out, errs := tineProc(ctx, bin, repo, "index", "status", "--verify")
	if code != 0 || !strings.Contains(string(out), "objects/catalog/history: fresh") || !strings.Contains(string(out), "0 differ") {
		t.Fatalf("index status --verify after concurrent writers: %d\n%s%s", code, out, errs)
	}
	if err := os.RemoveAll(filepath.Join(repo, ".tine", "objects", "catalog", "history")); err != nil {
		t.Fatal(err)
	}
	if fromObjects := views(); fromObjects != fromIndex {
		t.Fatalf("log and diff through the index written by concurrent writers differ from a fresh index's")
	}
}
