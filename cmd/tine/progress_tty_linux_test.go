package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// progressVerbs are the long-running verbs that report progress, run in
// order against one repository (each after the ones it needs).
func progressVerbs(repo, dir, other string) [][]string {
	otlp, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "otlp", "genai_current.json"))
	return [][]string{
		{"--repo", repo, "import", filepath.Join(dir, "steps.jsonl"), "--ref", "heads/main"},
		{"--repo", repo, "import", "--format", "otlp", otlp, "--ref", "experiments/otlp"},
		{"--repo", repo, "fsck"},
		{"--repo", repo, "pack", "heads/main", "-o", filepath.Join(dir, "main.pack"), "--force"},
		{"--repo", other, "unpack", filepath.Join(dir, "main.pack")},
		{"--repo", repo, "index", "rebuild"},
		{"--repo", repo, "index", "update"},
		{"--repo", repo, "repack"},
	}
}

// runWithStderr runs tine with stderr on errw (stdin empty) under the
// given TINE_PROGRESS_DELAY and returns its exit status and stdout.
func runWithStderr(t *testing.T, errw *os.File, delay string, args []string) (int, string) {
	t.Helper()
	cmd := tineCmd(t, args...)
	cmd.Env = append(os.Environ(), progressDelayEnv+"="+delay)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return waitExit(t, cmd), out.String()
}

// ptyReader collects what the terminal shows; upTo returns it up to a
// marker the test writes to the terminal after the command exits, so every
// byte the command wrote has been read, with no sleeping.
type ptyReader struct{ ch chan []byte }

// newPTYReader starts reading master.
func newPTYReader(master *os.File) *ptyReader {
	p := &ptyReader{ch: make(chan []byte, 64)}
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := master.Read(buf)
			if n > 0 {
				p.ch <- buf[:n]
			}
			if err != nil {
				close(p.ch)
				return
			}
		}
	}()
	return p
}

// upTo writes marker to the terminal and returns what it showed before it.
func (p *ptyReader) upTo(t *testing.T, slave *os.File, marker string) string {
	t.Helper()
	if _, err := slave.WriteString(marker); err != nil {
		t.Fatal(err)
	}
	var got []byte
	deadline := time.After(harnessTimeout)
	for !bytes.Contains(got, []byte(marker)) {
		select {
		case b, ok := <-p.ch:
			if !ok {
				t.Fatalf("terminal closed; read %q", got)
			}
			got = append(got, b...)
		case <-deadline:
			t.Fatalf("marker never came through the terminal; read %q", got)
		}
	}
	return string(got[:bytes.Index(got, []byte(marker))])
}

// TestProgressOnTerminalOnly: import (JSONL and OTLP), fsck, pack, unpack,
// index rebuild/update and repack (gc's renderer) draw a progress line on stderr when
// it is a terminal and the work has outlasted the delay (lowered to zero
// through the hidden TINE_PROGRESS_DELAY so small repositories show it),
// clear it at the end, and never touch stdout. With the delay not reached,
// or stderr a file, nothing but the verb's own messages appears.
func TestProgressOnTerminalOnly(t *testing.T) {
	master, slave := openPTY(t)
	pr := newPTYReader(master)
	dir, repo := newHarnessRepo(t)
	_, other := newHarnessRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "steps.jsonl"), []byte(importStream("s", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, args := range progressVerbs(repo, dir, other) {
		verb := args[2]
		if verb == "index" {
			verb += " " + args[3]
		}
		code, stdout := runWithStderr(t, slave, "0s", args)
		shown := pr.upTo(t, slave, "<end-of-"+verb+">")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, shown)
		}
		if !strings.Contains(shown, "\r"+verb+": ") {
			t.Errorf("%s: no progress line on the terminal: %q", verb, shown)
		}
		if !strings.HasSuffix(shown, "\r\x1b[K") {
			t.Errorf("%s: progress line not cleared at the end: %q", verb, shown)
		}
		if strings.ContainsAny(stdout, "\r\x1b") {
			t.Errorf("%s: progress on stdout: %q", verb, stdout)
		}
		// The same verb again with a delay it never reaches: nothing drawn.
		if i >= 2 {
			if code, _ := runWithStderr(t, slave, "1h", args); code != 0 {
				t.Fatalf("%v: exit %d", args, code)
			}
			if shown := pr.upTo(t, slave, "<end-again>"); strings.ContainsAny(shown, "\r\x1b") {
				t.Errorf("%s: progress before the delay: %q", verb, shown)
			}
		}
	}
	// stderr a file: no progress whatever the delay.
	dir2, repo2 := newHarnessRepo(t)
	_, other2 := newHarnessRepo(t)
	if err := os.WriteFile(filepath.Join(dir2, "steps.jsonl"), []byte(importStream("s", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range progressVerbs(repo2, dir2, other2) {
		f, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		code, _ := runWithStderr(t, f, "0s", args)
		f.Close()
		errs, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if bytes.ContainsAny(errs, "\r\x1b") || bytes.Contains(errs, []byte("…")) {
			t.Errorf("%v: progress on a non-terminal stderr: %q", args, errs)
		}
	}
}
