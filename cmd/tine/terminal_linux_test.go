package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// termEnv is a getenv with only TERM set.
func termEnv(term string) func(string) string {
	return func(k string) string {
		if k == "TERM" {
			return term
		}
		return ""
	}
}

// openDevNull opens /dev/null for writing: a character device that is not
// a terminal.
func openDevNull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestTermDumbMeansNoColour(t *testing.T) {
	_, slave := openPTY(t)
	if !wantColor(slave, termEnv("xterm-256color")) {
		t.Fatal("no colour on a terminal with TERM=xterm-256color")
	}
	if wantColor(slave, termEnv("dumb")) {
		t.Fatal("colour with TERM=dumb")
	}
	if !colorFor("always", slave, termEnv("dumb")) || colorFor("never", slave, termEnv("xterm")) || colorFor("auto", slave, termEnv("dumb")) {
		t.Fatal("--color does not decide as documented")
	}
}

// TestDevNullIsNoTerminal: /dev/null is a character device, yet output
// thrown away there is not shown on a terminal, so it gets no colour.
func TestDevNullIsNoTerminal(t *testing.T) {
	f := openDevNull(t)
	if isTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
	if wantColor(f, termEnv("xterm-256color")) {
		t.Fatal("colour chosen for /dev/null")
	}
	_, slave := openPTY(t)
	if !isTerminal(slave) {
		t.Fatal("a pseudo-terminal not taken for a terminal")
	}
}

// logWithPager runs `tine ARGS` in-process with stdout on out and a
// $PAGER that leaves a marker file, and reports whether the pager ran.
func logWithPager(t *testing.T, out *os.File, args ...string) bool {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TINE_DIR", "")
	if code, _, stderr := tineRun(t, "", "init"); code != exitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := tineRun(t, "", "record", "--", "true"); code != exitOK {
		t.Fatal(stderr)
	}
	marker := filepath.Join(dir, "paged")
	t.Setenv("PAGER", "touch '"+marker+"'; cat >/dev/null")
	var errb strings.Builder
	if code := run(args, strings.NewReader(""), out, &errb); code != exitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	_, err := os.Stat(marker)
	return err == nil
}

func TestNoPagerSkipsThePager(t *testing.T) {
	_, slave := openPTY(t)
	if logWithPager(t, slave, "--no-pager", "log") {
		t.Fatal("--no-pager ran $PAGER")
	}
	if !logWithPager(t, slave, "log") {
		t.Fatal("the pager did not run on a terminal without --no-pager, so the test proves nothing")
	}
}

// TestNoPagerForDevNull: `tine log >/dev/null` (as scripts and benchmarks
// run it) writes directly; it used to start $PAGER because /dev/null is a
// character device.
func TestNoPagerForDevNull(t *testing.T) {
	if logWithPager(t, openDevNull(t), "log") {
		t.Fatal("$PAGER ran with stdout on /dev/null")
	}
}
