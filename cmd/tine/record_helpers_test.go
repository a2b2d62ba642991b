//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// harnessTimeout bounds every wait of these tests: generous, since the CI
// machine has two loaded cores; a healthy run takes a fraction of it.
const harnessTimeout = 2 * time.Minute

// tineCmd is a real tine process: the test binary TestMain installed on
// PATH under the name tine.
func tineCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("tine")
	if err != nil {
		t.Fatalf("tine is not on PATH (TestMain installs it): %v", err)
	}
	return exec.Command(bin, args...)
}

// runProc runs cmd to completion and returns its exit status and output.
func runProc(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("run %v: %v", cmd.Args, err)
	return 0, "", ""
}

// newHarnessRepo creates a repository and returns its .tine directory.
func newHarnessRepo(t *testing.T) (dir, repo string) {
	t.Helper()
	dir = t.TempDir()
	if code, _, errs := tineRun(t, "", "init", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	return dir, filepath.Join(dir, ".tine")
}

// loadRun reads the run at rev in repo.
func loadRun(t *testing.T, repo, rev string) *runs.Run {
	t.Helper()
	r, err := plumbing.Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run, _, err := runs.ResolveRun(context.Background(), r, rev)
	if err != nil {
		t.Fatalf("resolve %s: %v", rev, err)
	}
	return run
}

// attr returns the event attribute key as text ("" when absent).
func attr(e *runs.Event, key string) string {
	v, ok := e.Attributes.Get(key)
	if !ok {
		return ""
	}
	if v.IsNumber() {
		return fmt.Sprint(v.Int)
	}
	if len(v.Array) == 0 {
		return v.Str
	}
	var parts []string
	for _, x := range v.Array {
		parts = append(parts, x.Str)
	}
	return strings.Join(parts, ",")
}

// waitFile waits for path to exist and returns its trimmed content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(harnessTimeout)
	for {
		if b, err := os.ReadFile(path); err == nil {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGroupGone waits until no live process is left in process group
// pgid. A killed grandchild is a zombie until init reaps it, which kill(2)
// still finds, so on Linux /proc tells the living from the zombies.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(harnessTimeout)
	for {
		live := liveInGroup(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("process group %d still has live processes: %v", pgid, live)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// liveInGroup lists the processes of group pgid that are not zombies.
func liveInGroup(pgid int) []string {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return nil
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	if len(stats) == 0 {
		return []string{"(no /proc: kill(2) still finds the group)"}
	}
	var live []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[2] == fmt.Sprint(pgid) && f[0] != "Z" {
			live = append(live, string(b[:bytes.LastIndexByte(b, ')')+1]))
		}
	}
	return live
}

// waitExit waits for cmd and returns its exit status, killing it after
// harnessTimeout.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(harnessTimeout):
		cmd.Process.Kill()
		t.Fatalf("tine did not exit")
	}
	return 0
}

// waitSignaled waits for cmd and returns the signal that ended it, or
// fails the test when it exited instead (a shell tells the two apart).
func waitSignaled(t *testing.T, cmd *exec.Cmd) syscall.Signal {
	t.Helper()
	code := waitExit(t, cmd)
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		t.Fatalf("%s exited %d; want it ended by a signal", filepath.Base(cmd.Path), code)
	}
	return ws.Signal()
}

// catchSIGINT keeps SIGINT from being ignored in the processes the test
// starts: a test binary started with it ignored (a background job of a
// non-interactive shell) would pass the ignoring on, and a shell started
// so cannot be stopped by it.
func catchSIGINT(t *testing.T) {
	if !signal.Ignored(syscall.SIGINT) {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT)
	t.Cleanup(func() { signal.Stop(c) })
}
