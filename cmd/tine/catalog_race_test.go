package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCatalogLayersConcurrentProcesses runs real `tine import` processes
// onto two refs while other processes read the catalog (`tine runs`,
// `tine log --all`), each reader refreshing it with a layer or a
// compaction under the writers' lock; no process fails, and afterwards
// the answers from the base and layers they left equal the answers after
// the catalog is deleted (rebuilt from the objects).
func TestCatalogLayersConcurrentProcesses(t *testing.T) {
	ctx, bin, repo := procRepo(t)
	lines := func(tag string, n int) string {
		return jsonlFile(t, tag, n, func(i int) string {
			return fmt.Sprintf(`{"kind":"tool","tool":"%s","cost":%d,"input_digest":"%s-%d"}`, tag, i%5, tag, i)
		})
	}
	// A base large enough that one import's layer stays under an eighth.
	if code, _, errs := tineProc(ctx, bin, repo, "import", lines("base", 400), "--ref", "heads/main"); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	if code, _, errs := tineProc(ctx, bin, repo, "fork", "heads/main", "--from", "heads/main~10", "--ref", "heads/b"); code != 0 {
		t.Fatalf("fork: %s", errs)
	}
	var wg sync.WaitGroup
	errc := make(chan string, 200)
	proc := func(args ...string) {
		if code, _, errs := tineProc(ctx, bin, repo, args...); code != 0 {
			errc <- fmt.Sprintf("%v: %d %s", args, code, errs)
		}
	}
	for _, ref := range []string{"heads/main", "heads/b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 12 {
				proc("import", lines(fmt.Sprintf("%s-%d", strings.TrimPrefix(ref, "heads/"), i), 2), "--ref", ref)
			}
		}()
	}
	for _, args := range [][]string{{"runs"}, {"log", "--all", "--oneline"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 12 {
				proc(args...)
			}
		}()
	}
	wg.Wait()
	failed := func() {
		for {
			select {
			case e := <-errc:
				t.Fatal(e)
			default:
				return
			}
		}
	}
	failed()
	views := func() string {
		return procOutputs(ctx, t, bin, repo, [][]string{{"runs", "--json"}, {"log", "--all", "--json"}, {"graph", "--all", "--format=json"}, {"log", "--graph", "--all"}})
	}
	// Two more appends, each read: a compaction leaves no layer, so at
	// least one of the two refreshes leaves one.
	layered := false
	for i := range 2 {
		proc("import", lines(fmt.Sprintf("last-%d", i), 1), "--ref", "heads/main")
		proc("runs")
		_, st, _ := tineProc(ctx, bin, repo, "index", "status", "--json")
		layered = layered || !strings.Contains(string(st), `"layers": 0,`)
	}
	if !layered {
		t.Fatal("no refresh left a layer")
	}
	// The last `runs` brought the catalog up to date: each view reads it
	// fresh, as each does after the rebuild below.
	fromLayers := views()
	code, out, errs := tineProc(ctx, bin, repo, "index", "status")
	if code != 0 || !strings.Contains(string(out), "objects/catalog/catalog: fresh") {
		t.Fatalf("index status after concurrent processes: %d\n%s%s", code, out, errs)
	}
	for _, p := range []string{"catalog", "layers"} {
		if err := os.RemoveAll(filepath.Join(repo, ".tine", "objects", "catalog", p)); err != nil {
			t.Fatal(err)
		}
	}
	proc("runs")
	failed()
	if fromObjects := views(); fromObjects != fromLayers {
		t.Fatalf("the catalog left by concurrent processes answers otherwise than a rebuilt one")
	}
}
