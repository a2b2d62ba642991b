package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestViewProcess runs `tine view` as a real process: it prints its
// loopback address, serves the page and the API there, and stops cleanly
// (exit 0) on an interrupt.
func TestViewProcess(t *testing.T) {
	bin := buildTine(t)
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command(bin, "init", repo).CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	if code, _, stderr := tineProc(t.Context(), bin, repo, "record", "--", "sh", "-c", "echo hi"); code != 0 {
		t.Fatalf("record: %s", stderr)
	}
	cmd := exec.Command(bin, "--repo", repo, "view", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TINE_DIR=", "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, stdout); done <- cmd.Wait() }()
	if err != nil {
		t.Fatalf("reading the address: %v (stderr %s)", err, stderr.String())
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "tine view: serving ")
	url, _, _ = strings.Cut(url, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	res, err := http.Get(url + "api/graph")
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Events, Lanes int }
	err = json.NewDecoder(res.Body).Decode(&info)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 || info.Events != 1 || info.Lanes != 1 {
		t.Fatalf("api/graph: %d %+v %v", res.StatusCode, info, err)
	}
	res, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("page: %d %v", res.StatusCode, res.Header)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		stopped = true
		if err != nil {
			t.Fatalf("tine view after an interrupt: %v (stderr %s)", err, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("tine view did not stop on an interrupt")
	}
}
