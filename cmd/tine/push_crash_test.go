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

// transferCrashArgsEnv holds the tine command line (space-separated, no
// spaces inside arguments) TestTransferCrashChild runs.
const transferCrashArgsEnv = "TINE_TRANSFER_CRASH_ARGS"

// TestTransferCrashChild is the process TestPushSIGKILLedMidUpload kills:
// one tine command (a push or a fetch), in-process. It does nothing
// unless the parent set transferCrashArgsEnv.
func TestTransferCrashChild(t *testing.T) {
	args := os.Getenv(transferCrashArgsEnv)
	if args == "" {
		t.Skip("child of TestPushSIGKILLedMidUpload")
	}
	var errb strings.Builder
	code := run(strings.Fields(args), strings.NewReader(""), io.Discard, &errb)
	fmt.Fprint(os.Stderr, errb.String())
	os.Exit(code)
}

// TestPushSIGKILLedMidUpload SIGKILLs a real `tine push` to a path remote
// once the remote has stored the first of several batches of the run's
// objects: the remote must not have the ref (objects go first, refs
// last), must pass fsck, and the next push must succeed with no manual
// cleanup, leaving both sides fsck-clean. Then the same for a fetch killed
// midway: no tracking ref, fsck clean, and the next fetch completes.
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

	killMidway(t, filepath.Join(hub, ".tine", "objects", "pack"), "--repo", local, "push", "origin", "main")
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

	// The same for a fetch: killed once the first batch is stored here,
	// it leaves no tracking ref, and the next fetch completes.
	other := filepath.Join(dir, "other")
	mustRun(t, "", "init", other)
	mustRun(t, "", "--repo", other, "remote", "add", "origin", hub)
	killMidway(t, filepath.Join(other, ".tine", "objects", "pack"), "--repo", other, "fetch", "origin")
	if code, out, _ := tineRun(t, "", "--repo", other, "rev-parse", "remotes/origin/main"); code == 0 {
		t.Fatalf("the killed fetch left a tracking ref: %s", out)
	}
	fsckClean(t, other)
	mustRun(t, "", "--repo", other, "fetch", "origin")
	if _, got, _ := tineRun(t, "", "--repo", other, "rev-parse", "remotes/origin/main"); got != want {
		t.Fatalf("fetched remotes/origin/main %q, want %q", got, want)
	}
	fsckClean(t, other)
}

// killMidway runs tine args in a child process and SIGKILLs it as soon as
// a storage pack appears in packs (the first batch of objects is stored
// and more are to come); it fails the test if the command ends first.
func killMidway(t *testing.T, packs string, args ...string) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestTransferCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), transferCrashArgsEnv+"="+strings.Join(args, " "))
	var childErr strings.Builder
	child.Stderr = &childErr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		select {
		case err := <-done:
			t.Fatalf("tine %s ended (%v) before a batch was stored: %s", strings.Join(args, " "), err, childErr.String())
		default:
		}
		if m, _ := filepath.Glob(filepath.Join(packs, "pack-*.pack")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("tine %s stored no batch in 5 minutes", strings.Join(args, " "))
		}
		time.Sleep(time.Millisecond)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Success() {
		t.Fatalf("tine %s was not killed: %v", strings.Join(args, " "), err)
	}
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
