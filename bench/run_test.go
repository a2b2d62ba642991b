package bench

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHarnessSmoke runs run.sh once at a tiny scale (200 objects, a
// 200-event history, pushed and fetched, 10 CAS processes, a 50-iteration
// loop) and checks that every case, the history, remote, CAS and loop rows
// included, produced a figure for both tools (for tine alone in the loop
// rows) and that the report names the machine. It needs bash and git; it
// takes a minute.
func TestHarnessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the harness")
	}
	for _, tool := range []string{"bash", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH", tool)
		}
	}
	cmd := exec.Command("bash", "run.sh")
	cmd.Env = append(os.Environ(), "BENCH_SCALE=200", "BENCH_RUNS=1", "BENCH_LARGE_MB=8",
		"BENCH_LARGE_GIT=0", "BENCH_EVENTS=200", "BENCH_REMOTE_EVENTS=200", "BENCH_LOOP=50", "BENCH_CAS=10", "BENCH_DIR="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run.sh: %v\nstderr:\n%s", err, stderr.String())
	}
	report := string(out)
	for _, want := range []string{"machine: ", "software: ", "| operation ", "large file: raw BLAKE3 "} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	for _, row := range []string{"bulk write (200", "bulk write vs git fast-import", "fsck, loose", "fsck, packed", "read all from packs", "random-order reads (shuffled --batch)", "200 refs, one txn, git defaults", "200 refs, one txn, durable git",
		"log -n 20, 200-event run", "diff, fork of 100 at 200", "record true onto 200 vs commit", "import 200 events vs fast-import",
		"push 200-event run, path", "push 200-event run, HTTP", "fetch 200-event run, path", "fetch 200-event run, HTTP", "log --graph --all, 50 forks at 200", "10 CAS processes, git defaults", "10 CAS processes, durable git"} {
		line := lineWith(report, row)
		if line == "" {
			t.Errorf("report lacks the %q row:\n%s", row, report)
			continue
		}
		// | label | git s | tine s | ratio | ...: both times and the ratio
		// must be numbers, not FAIL, skip or -.
		f := strings.Split(line, "|")
		for _, cell := range f[2:5] {
			if c := strings.TrimSpace(cell); c == "" || strings.Trim(c, "0123456789.") != "" {
				t.Errorf("row %q has a non-numeric cell %q:\n%s", row, c, report)
			}
		}
	}
	// The loop rows are tine's alone: their tine time must be a number.
	for _, row := range []string{"loop run, 50 iterations", "loop show of that loop", "log --all of that loop"} {
		line := lineWith(report, row)
		if f := strings.Split(line, "|"); len(f) < 4 || strings.Trim(strings.TrimSpace(f[3]), "0123456789.") != "" || strings.TrimSpace(f[3]) == "" {
			t.Errorf("loop row %q lacks a tine time:\n%s", row, report)
		}
	}
	if !strings.Contains(report, "loop: 50 iterations in ") {
		t.Errorf("report lacks the loop summary:\n%s", report)
	}
}

// lineWith returns the first line of s containing sub, or "".
func lineWith(s, sub string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}
