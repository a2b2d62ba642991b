package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// gcRaceDuration is how long TestGCPruneBesideRecord races gc against
// record (go test ./cmd/tine -run GCPrune -gc-race=10s for a quick look).
var gcRaceDuration = flag.Duration("gc-race", 60*time.Second, "duration of TestGCPruneBesideRecord")

// buildTine builds the tine binary into a temporary directory, so a test
// can run real, separately killable processes.
func buildTine(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "tine")
	out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// tineProc runs the built binary on repo and returns its exit status,
// stdout and stderr.
func tineProc(ctx context.Context, bin, repo string, args ...string) (int, []byte, string) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"--repo", repo}, args...)...)
	cmd.Env = append(os.Environ(), "TINE_DIR=", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.Bytes(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.Bytes(), stderr.String()
	}
	return -1, stdout.Bytes(), err.Error()
}

// procRepo builds the tine binary and initialises a repository for a
// test of real processes; the context bounds every process the test runs.
func procRepo(t *testing.T) (ctx context.Context, bin, repo string) {
	t.Helper()
	bin = buildTine(t)
	repo = filepath.Join(t.TempDir(), "repo")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	if code, _, errs := tineRun(t, "", "init", repo); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	return ctx, bin, repo
}

// jsonlFile writes n lines, line(i) each, to a fresh file named for tag
// and returns its path.
func jsonlFile(t *testing.T, tag string, n int, line func(i int) string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), tag+".jsonl")
	var b strings.Builder
	for i := range n {
		b.WriteString(line(i) + "\n")
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// procOutputs runs each command line on repo and returns their standard
// outputs joined, failing the test on any failure.
func procOutputs(ctx context.Context, t *testing.T, bin, repo string, cmds [][]string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range cmds {
		code, out, errs := tineProc(ctx, bin, repo, args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		b.Write(out)
	}
	return b.String()
}

// TestGCPruneBesideRecord runs `tine gc --prune=now` in a loop beside
// three concurrent `tine record` loops (real processes; two share a ref)
// for -gc-race (60 s by default), then requires fsck to be clean and
// every acknowledged record (exit 0) to have its event in its run. Before
// the writers' lock, gc computed reachability while a record had written
// its event and run but not yet moved the ref, and deleted them: the ref
// then named a missing run.
func TestGCPruneBesideRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("races real processes for a minute")
	}
	bin := buildTine(t)
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command(bin, "init", repo).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *gcRaceDuration+5*time.Minute)
	defer cancel()
	deadline := time.Now().Add(*gcRaceDuration)

	var mu sync.Mutex
	acked := map[string][]string{} // ref -> acknowledged events
	var failures []string
	records, gcs := 0, 0
	var wg sync.WaitGroup
	for k := range 3 {
		ref := fmt.Sprintf("heads/w%d", k%2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				code, out, _ := tineProc(ctx, bin, repo, "record", "--json", "--ref", ref, "--", "true")
				if code != 0 {
					continue // not acknowledged: nothing to check
				}
				var res struct{ Event string }
				if err := json.Unmarshal(out, &res); err != nil || res.Event == "" {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("record exit 0 without an event: %v %q", err, out))
					mu.Unlock()
					continue
				}
				mu.Lock()
				acked[ref] = append(acked[ref], res.Event)
				records++
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			code, _, stderr := tineProc(ctx, bin, repo, "gc", "--prune=now")
			mu.Lock()
			gcs++
			if code != 0 {
				failures = append(failures, fmt.Sprintf("gc --prune=now exit %d: %s", code, stderr))
			}
			mu.Unlock()
		}
	}()
	wg.Wait()
	t.Logf("%v: %d acknowledged records, %d gcs", *gcRaceDuration, records, gcs)
	for _, f := range failures[:min(len(failures), 5)] {
		t.Error(f)
	}
	if records == 0 || gcs == 0 {
		t.Fatalf("the race did not run: %d records, %d gcs", records, gcs)
	}
	if code, out, stderr := tineProc(ctx, bin, repo, "fsck"); code != 0 {
		t.Errorf("fsck exit %d:\n%s%s", code, out, stderr)
	}
	for ref, events := range acked {
		code, out, stderr := tineProc(ctx, bin, repo, "log", ref, "--json")
		if code != 0 {
			t.Errorf("log %s exit %d: %s", ref, code, stderr)
			continue
		}
		var log struct{ Entries []struct{ Event string } }
		if err := json.Unmarshal(out, &log); err != nil {
			t.Fatalf("log %s: %v", ref, err)
		}
		in := map[string]bool{}
		for _, e := range log.Entries {
			in[e.Event] = true
		}
		lost := 0
		for _, ev := range events {
			if !in[ev] {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%s: %d of %d acknowledged events are not in the run", ref, lost, len(events))
		}
	}
}
