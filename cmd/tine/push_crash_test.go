package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pushCrashRepoEnv names the repository TestPushCrashChild pushes from.
const pushCrashRepoEnv = "TINE_PUSH_CRASH_REPO"

// TestPushCrashChild is the process TestPushSIGKILLedMidUpload kills: one
// `tine push origin main`, in-process. It does nothing unless the parent
// set pushCrashRepoEnv.
func TestPushCrashChild(t *testing.T) {
	repo := os.Getenv(pushCrashRepoEnv)
	if repo == "" {
		t.Skip("child of TestPushSIGKILLedMidUpload")
	}
	var errb strings.Builder
	code := run([]string{"--repo", repo, "push", "origin", "main"}, strings.NewReader(""), io.Discard, &errb)
	fmt.Fprint(os.Stderr, errb.String())
	os.Exit(code)
}

// TestPushSIGKILLedMidUpload SIGKILLs a real `tine push` to a path remote
// once the remote has stored the first of several batches of the run's
// objects: the remote must not have the ref (objects go first, refs
// last), must pass fsck, and the next push must succeed with no manual
// cleanup, leaving both sides fsck-clean.
func TestPushSIGKILLedMidUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 30,000-event run")
	}
	dir := t.TempDir()
	hub, local := filepath.Join(dir, "hub"), filepath.Join(dir, "local")
	mustRun(t, "", "init", hub)
	mustRun(t, "", "init", local)
	// 30,000 events with an output blob each: two batches on the remote
	// (remote.FileBatchObjects), so the kill lands with one still to go.
	for _, label := range []string{"first", "second", "third"} {
		mustRun(t, importStream(label, 10000), "--repo", local, "import", "-", "--ref", "heads/main")
	}
	mustRun(t, "", "--repo", local, "remote", "add", "origin", hub)

	child := exec.Command(os.Args[0], "-test.run=^TestPushCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), pushCrashRepoEnv+"="+local)
	var childErr strings.Builder
	child.Stderr = &childErr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	packs := filepath.Join(hub, ".tine", "objects", "pack")
	deadline := time.Now().Add(5 * time.Minute)
	killed := false
	for !killed {
		select {
		case err := <-done:
			t.Fatalf("the push ended (%v) before the remote stored a batch: %s", err, childErr.String())
		default:
		}
		if m, _ := filepath.Glob(filepath.Join(packs, "pack-*.pack")); len(m) > 0 {
			if err := child.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("no batch reached the remote in 5 minutes")
		}
		time.Sleep(time.Millisecond)
	}
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Success() {
		t.Fatalf("the push was not killed: %v", err)
	}
	if code, out, _ := tineRun(t, "", "--repo", hub, "rev-parse", "heads/main"); code == 0 {
		t.Fatalf("the killed push left heads/main on the remote: %s", out)
	}
	fsckClean(t, hub)

	code, out, errs := tineRun(t, "", "--repo", local, "push", "origin", "main")
	if code != 0 {
		t.Fatalf("push after the kill: exit %d\n%s%s", code, out, errs)
	}
	_, want, _ := tineRun(t, "", "--repo", local, "rev-parse", "heads/main")
	if _, got, _ := tineRun(t, "", "--repo", hub, "rev-parse", "heads/main"); got != want {
		t.Fatalf("remote heads/main %q, local %q", got, want)
	}
	fsckClean(t, hub)
	fsckClean(t, local)
}

// mustRun runs a verb in-process and fails the test unless it exits 0.
func mustRun(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errs := tineRun(t, stdin, args...)
	if code != 0 {
		t.Fatalf("tine %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}
