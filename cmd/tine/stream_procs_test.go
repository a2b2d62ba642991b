package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tinehq/tine/plumbing"
)

// unsetProcsEnv removes GOMAXPROCS from the environment for one test.
func unsetProcsEnv(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	os.Unsetenv("GOMAXPROCS")
}

// TestRaiseStreamProcsNestsAndRestores: overlapping streams raise
// GOMAXPROCS once, and it is back where it was when the last one ends.
func TestRaiseStreamProcsNestsAndRestores(t *testing.T) {
	unsetProcsEnv(t)
	base := runtime.GOMAXPROCS(0)
	first := raiseStreamProcs(2)
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("GOMAXPROCS while one stream runs = %d, want %d", got, base+2)
	}
	second := raiseStreamProcs(2)
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("GOMAXPROCS while two streams run = %d, want %d", got, base+2)
	}
	first()
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("GOMAXPROCS after the first of two streams ended = %d, want %d", got, base+2)
	}
	second()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS after both streams ended = %d, want %d", got, base)
	}
}

// TestRaiseStreamProcsKeepsUserSetting: a GOMAXPROCS the user set in the
// environment is left as it is, as GOGC is for the collector's target.
func TestRaiseStreamProcsKeepsUserSetting(t *testing.T) {
	t.Setenv("GOMAXPROCS", "1")
	base := runtime.GOMAXPROCS(0)
	restore := raiseStreamProcs(2)
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS with GOMAXPROCS=1 set = %d, want it unchanged at %d", got, base)
	}
	restore()
}

// TestHashObjectWriteRaisesProcsAroundStream: the verbs that stream large
// blobs into the store raise GOMAXPROCS by the store's writer count
// (loose.StreamWriters, which plumbing passes on) for each stream and
// restore it after (the library no longer does, see
// loose.TestPutBlobFromLeavesProcsAlone); hashing without -w streams
// nothing to disk and raises nothing.
func TestHashObjectWriteRaisesProcsAroundStream(t *testing.T) {
	unsetProcsEnv(t)
	base := runtime.GOMAXPROCS(0)
	type call struct{ writers, procs int }
	var during []call
	defer func(old func(int) func()) { aroundStream = old }(aroundStream)
	aroundStream = func(writers int) func() {
		restore := raiseStreamProcs(writers)
		during = append(during, call{writers, runtime.GOMAXPROCS(0)})
		return restore
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if code, _, errs := tineRun(t, "", "init", repo); code != 0 {
		t.Fatal(errs)
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, []byte(strings.Repeat("large blob line\n", plumbing.StreamThreshold/16+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		calls int
	}{
		{"hash-object -w FILE", "", []string{"--repo", repo, "hash-object", "-w", big}, 1},
		{"hash-object --stdin-paths -w", big + "\n", []string{"--repo", repo, "hash-object", "--stdin-paths", "-w"}, 1},
		{"hash-object FILE", "", []string{"--repo", repo, "hash-object", big}, 0},
	} {
		during = nil
		if code, _, errs := tineRun(t, tc.stdin, tc.args...); code != 0 {
			t.Fatalf("%s: %s", tc.name, errs)
		}
		if len(during) != tc.calls {
			t.Fatalf("%s: %d streams raised GOMAXPROCS, want %d", tc.name, len(during), tc.calls)
		}
		for _, c := range during {
			if c.writers < 1 || c.procs != base+c.writers {
				t.Errorf("%s: %d writers, GOMAXPROCS during the stream = %d, want %d", tc.name, c.writers, c.procs, base+c.writers)
			}
		}
		if got := runtime.GOMAXPROCS(0); got != base {
			t.Fatalf("%s: GOMAXPROCS after the verb = %d, want %d", tc.name, got, base)
		}
	}
}
