package main

import (
	"bytes"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// gcSpy is a batch's standard input: it notes the collector's target when
// the batch reads it.
type gcSpy struct {
	r    io.Reader
	seen []int
}

func (s *gcSpy) Read(p []byte) (int, error) {
	old := debug.SetGCPercent(100)
	debug.SetGCPercent(old)
	s.seen = append(s.seen, old)
	return s.r.Read(p)
}

// TestCatObjectBatchRaisesGC: a batch runs at batchGCPercent unless the
// user set GOGC, and restores the target when it ends.
func TestCatObjectBatchRaisesGC(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := tineRun(t, "", "init", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	code, oid, errs := tineRun(t, "a blob\n", "--repo", dir, "hash-object", "-w", "--stdin")
	if code != 0 {
		t.Fatalf("hash-object: %s", errs)
	}
	if v, set := os.LookupEnv("GOGC"); set {
		os.Unsetenv("GOGC")
		t.Cleanup(func() { os.Setenv("GOGC", v) })
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, tc := range []struct {
		gogc string
		want int
	}{{"", batchGCPercent}, {"100", 100}} {
		if tc.gogc != "" {
			t.Setenv("GOGC", tc.gogc)
		}
		spy := &gcSpy{r: strings.NewReader(oid)}
		var out, errb bytes.Buffer
		if code := run([]string{"--repo", dir, "cat-object", "--batch"}, spy, &out, &errb); code != 0 || !strings.Contains(out.String(), " blob ") {
			t.Fatalf("GOGC=%q: exit %d, %q, %q", tc.gogc, code, out.String(), errb.String())
		}
		if len(spy.seen) == 0 || spy.seen[0] != tc.want {
			t.Fatalf("GOGC=%q: the batch ran at %v, want %d", tc.gogc, spy.seen, tc.want)
		}
		if now := debug.SetGCPercent(100); now != 100 {
			t.Fatalf("GOGC=%q: the target after the batch is %d, want 100 restored", tc.gogc, now)
		}
	}
}
