//go:build unix

package main

import (
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

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

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
	if filepath.Dir(file) != filepath.Join(repo, runs.RecoveryDir) {
		t.Fatalf("recovery file %s is not in the repository's %s/", file, runs.RecoveryDir)
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
