//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain"
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
func loadRun(t *testing.T, repo, rev string) *porcelain.Run {
	t.Helper()
	r, err := plumbing.Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run, _, err := porcelain.ResolveRun(context.Background(), r, rev)
	if err != nil {
		t.Fatalf("resolve %s: %v", rev, err)
	}
	return run
}

// attr returns the event attribute key as text ("" when absent).
func attr(e *porcelain.Event, key string) string {
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

// fsckClean requires tine fsck to find no problem.
func fsckClean(t *testing.T, repo string) {
	t.Helper()
	if code, out, errs := tineRun(t, "", "--repo", repo, "fsck"); code != 0 {
		t.Fatalf("fsck: %d\n%s%s", code, out, errs)
	}
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

// TestRecordConcurrentRecordsAllLand starts 16 tine records onto one run
// at once, the run not existing yet. Each command appends a line to a
// shared file. Every command runs exactly once, every record exits 0, and
// the final run holds each event exactly once (concurrency shows as
// several tips); fsck is clean. Before, most records failed on the ref
// race and a user's retry ran their command again.
func TestRecordConcurrentRecordsAllLand(t *testing.T) {
	dir, repo := newHarnessRepo(t)
	shared := filepath.Join(dir, "shared")
	const n = 16
	codes := make([]int, n)
	stderrs := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		cmd := tineCmd(t, "--repo", repo, "record", "--", "sh", "-c", `echo "$1" >> "$2"`, "sh", fmt.Sprintf("cmd-%02d", i), shared)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i], _, stderrs[i] = runProc(t, cmd)
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if codes[i] != 0 {
			t.Errorf("record %d: exit %d: %s", i, codes[i], stderrs[i])
		}
	}
	b, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(b))
	slices.Sort(lines)
	if len(lines) != n || len(slices.Compact(slices.Clone(lines))) != n {
		t.Fatalf("commands ran %d times (want each of %d once): %v", len(lines), n, lines)
	}
	run := loadRun(t, repo, "heads/main")
	var recorded []string
	for _, e := range run.Events {
		argv := attr(e, "argv")
		recorded = append(recorded, strings.Split(argv, ",")[4])
	}
	slices.Sort(recorded)
	if !slices.Equal(recorded, lines) {
		t.Fatalf("run holds %v, want each command once: %v", recorded, lines)
	}
	t.Logf("%d events, %d roots, %d tips", len(run.Events), len(run.Roots), len(run.Tips))
	fsckClean(t, repo)
}

// TestRecordForwardsSignalsAndRecords sends SIGINT, SIGTERM and SIGHUP to
// tine while its command sleeps: the signal reaches the command's process
// group, the event is recorded with the signal and exit code 128+N, tine
// exits 128+N, and no process of the group is left. Before, SIGINT killed
// the command and recorded nothing, and SIGTERM/SIGHUP killed tine and
// left the command running.
func TestRecordForwardsSignalsAndRecords(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, repo := newHarnessRepo(t)
			pidFile := filepath.Join(dir, "pid")
			cmd := tineCmd(t, "--repo", repo, "record", "--", "sh", "-c",
				`echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 300`, "sh", pidFile)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			fmt.Sscan(waitFile(t, pidFile), &pid)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := waitExit(t, cmd)
			if want := 128 + int(sig); code != want {
				t.Fatalf("tine exited %d, want %d; stderr: %s", code, want, errb.String())
			}
			waitGroupGone(t, pid)
			run := loadRun(t, repo, "heads/main")
			e := run.Events[len(run.Events)-1]
			if len(run.Events) != 1 || attr(e, "signal") != sig.String() || attr(e, "exit_code") != fmt.Sprint(128+int(sig)) || attr(e, "forwarded_signals") != sig.String() {
				t.Fatalf("recorded event: %s", e.Object.Body)
			}
			fsckClean(t, repo)
		})
	}
}

// TestRecordSecondSignalKillsGroupAndRecords: a command that traps SIGINT
// survives the forwarded first Ctrl-C; the second kills its whole group,
// and the event is still recorded (killed, 137, both signals listed).
func TestRecordSecondSignalKillsGroupAndRecords(t *testing.T) {
	dir, repo := newHarnessRepo(t)
	pidFile, trapped := filepath.Join(dir, "pid"), filepath.Join(dir, "trapped")
	cmd := tineCmd(t, "--repo", repo, "record", "--", "sh", "-c",
		`trap 'echo yes > "$2"' INT; echo $$ > "$1.tmp" && mv "$1.tmp" "$1"; while :; do sleep 1; done`, "sh", pidFile, trapped)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(waitFile(t, pidFile), &pid)
	cmd.Process.Signal(syscall.SIGINT)
	waitFile(t, trapped) // the first Ctrl-C reached the command, which kept going
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("tine exited %d, want 137", code)
	}
	waitGroupGone(t, pid)
	run := loadRun(t, repo, "heads/main")
	e := run.Events[0]
	if attr(e, "signal") != "killed" || attr(e, "forwarded_signals") != "interrupt,killed" {
		t.Fatalf("recorded event: %s", e.Object.Body)
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

// TestRecordRefusesLockedRefBeforeRunning holds the run's ref guard as a
// live writer would (the file plus its flock): record refuses with exit 1
// and runs nothing. Before, the command ran and only the append failed.
func TestRecordRefusesLockedRefBeforeRunning(t *testing.T) {
	dir, repo := newHarnessRepo(t)
	if code, _, errs := runProc(t, tineCmd(t, "--repo", repo, "record", "--", "true")); code != 0 {
		t.Fatalf("first record: %s", errs)
	}
	guard := filepath.Join(repo, "refs", "heads", "main.lock")
	f, err := os.OpenFile(guard, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	code, _, errs := runProc(t, tineCmd(t, "--repo", repo, "record", "--", "touch", marker))
	if code != 1 || !strings.Contains(errs, "held by another live writer") || !strings.Contains(errs, "nothing was run") {
		t.Fatalf("record onto a held ref: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran although the ref was held")
	}
	os.Remove(guard)
	f.Close()
	if code, _, errs := runProc(t, tineCmd(t, "--repo", repo, "record", "--", "touch", marker)); code != 0 {
		t.Fatalf("record once the writer finished: %s", errs)
	}
}

// TestRecordRefusesReadOnlyRepositoryBeforeRunning: a repository the user
// cannot write to is refused with exit 1 before the command runs. Root
// writes through permission bits, so as root tine runs as nobody (the
// repository stays root's, 0755).
func TestRecordRefusesReadOnlyRepositoryBeforeRunning(t *testing.T) {
	dir, repo := newHarnessRepo(t)
	if code, _, errs := runProc(t, tineCmd(t, "--repo", repo, "record", "--", "true")); code != 0 {
		t.Fatalf("first record: %s", errs)
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(outDir, 0o777)
	marker := filepath.Join(outDir, "ran")
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = asNobody(t, dir, "--repo", repo, "record", "--", "touch", marker)
	} else {
		readOnly(t, repo)
		cmd = tineCmd(t, "--repo", repo, "record", "--", "touch", marker)
	}
	code, _, errs := runProc(t, cmd)
	if code != 1 || !strings.Contains(errs, "repository is not writable") || !strings.Contains(errs, "nothing was run") {
		t.Fatalf("record into a read-only repository: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran although nothing could be recorded")
	}
	fsckClean(t, repo)
}

// asNobody returns tine running as user nobody (65534). The binary is
// copied where nobody can execute it, and every directory from / down to
// dir is made traversable.
func asNobody(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	src, err := exec.LookPath("tine")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "tine")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(d, fi.Mode().Perm()|0o005)
		}
	}
	nobody := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = append(os.Environ(), "HOME=/")
		return cmd
	}
	if out, err := nobody("version").CombinedOutput(); err != nil {
		t.Skipf("cannot run tine as user nobody here (a container without CAP_SETUID?): %v %s", err, out)
	}
	return nobody(args...)
}

// readOnly removes write permission from every directory under repo until
// the test ends.
func readOnly(t *testing.T, repo string) {
	t.Helper()
	var dirs []string
	filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range dirs {
		os.Chmod(d, 0o555)
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
}

// TestRecordFailureKeepsRecoveryFile: the command itself completes the run
// (a nested record with --status completed), so the outer event cannot be
// appended. tine exits 74 with one error line naming the recovery file;
// after tine resume, tine record --event FILE appends the event with the
// command's output and its original parent. Before, tine exited 1 and the
// command's output was lost.
func TestRecordFailureKeepsRecoveryFile(t *testing.T) {
	dir, repo := newHarnessRepo(t)
	if code, _, errs := runProc(t, tineCmd(t, "--repo", repo, "record", "--", "true")); code != 0 {
		t.Fatalf("first record: %s", errs)
	}
	tip := loadRun(t, repo, "heads/main").Tips[0]
	cmd := tineCmd(t, "--repo", repo, "record", "--", "sh", "-c",
		`tine --repo "$1" record --status completed -- true && echo outer-output && echo outer-error >&2`, "sh", repo)
	cmd.Dir = dir
	code, out, errs := runProc(t, cmd)
	if code != 74 || out != "outer-output\n" {
		t.Fatalf("record whose run was completed meanwhile: exit %d, stdout %q: %s", code, out, errs)
	}
	m := regexp.MustCompile(`(?m)^tine record: recording failed after the command ran \(exit 0\), nothing was appended to heads/main: .*became completed while the command ran.*kept in (\S+): append them with tine record --event (\S+) --ref heads/main\n\z`).FindStringSubmatch(errs)
	if m == nil || m[1] != m[2] {
		t.Fatalf("error line: %q", errs)
	}
	file := m[1]
	if filepath.Dir(file) != filepath.Join(repo, porcelain.RecoveryDir) {
		t.Fatalf("recovery file %s is not in the repository's %s/", file, porcelain.RecoveryDir)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "record", "--event", file); code != 1 || !strings.Contains(errs, "is completed") {
		t.Fatalf("append to the completed run: %d %s", code, errs)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "resume", "heads/main"); code != 0 {
		t.Fatalf("resume: %s", errs)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "record", "--event", file, "--ref", "heads/main"); code != 0 {
		t.Fatalf("re-append %s: %s", file, errs)
	}
	run := loadRun(t, repo, "heads/main")
	e := run.Events[len(run.Events)-1]
	if len(run.Events) != 3 || len(e.Parents) != 1 || e.Parents[0] != tip || attr(e, "exit_code") != "0" {
		t.Fatalf("re-appended event: %s", e.Object.Body)
	}
	r, err := plumbing.Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ids := append(e.Parents[:0:0], e.OutputBlob, e.ArtifactBlob) // cmd/tine names no objects type
	for i, want := range []string{"outer-output\n", "outer-error\n"} {
		// stderr also holds the nested record's summary line.
		o, err := r.Objects().Get(context.Background(), ids[i])
		if err != nil || !strings.HasSuffix(string(o.Body), want) {
			t.Fatalf("blob %s: %v, want %q", ids[i], err, want)
		}
	}
	fsckClean(t, repo)
}
