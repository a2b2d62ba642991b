package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// initWithRun makes a repository in a fresh directory with one event
// recorded on heads/a and returns the repository directory and the run's
// oid.
func initWithRun(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := tineRun(t, "", "init", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	repo := filepath.Join(dir, ".tine")
	if err := os.WriteFile(filepath.Join(dir, "e.json"), []byte(`{"kind":"note","text":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "record", "--event", filepath.Join(dir, "e.json"), "--ref", "heads/a"); code != 0 {
		t.Fatalf("record: %s", errs)
	}
	return repo, readRefFile(t, repo, "heads/a")
}

// TestRefsSkipsSymlinkedRef: one symlinked ref does not make `tine refs`
// fail: every other ref is listed, the bad one is named in a warning on
// stderr (or under "unreadable" in --json), the status is 0, and fsck
// still reports it as a problem.
func TestRefsSkipsSymlinkedRef(t *testing.T) {
	repo, run := initWithRun(t)
	if code, _, errs := tineRun(t, "", "--repo", repo, "update-ref", "heads/z", run); code != 0 {
		t.Fatalf("update-ref: %s", errs)
	}
	if err := os.Symlink("a", filepath.Join(repo, "refs", "heads", "x")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := tineRun(t, "", "--repo", repo, "refs")
	if code != 0 || !strings.Contains(out, " heads/a\n") || !strings.Contains(out, " heads/z\n") || strings.Contains(out, "heads/x") {
		t.Fatalf("refs: %d\n%s\n%s", code, out, errs)
	}
	if !strings.HasPrefix(errs, "tine refs: warning: skipped ref heads/x") || !strings.Contains(errs, "symlink") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("refs stderr: %q", errs)
	}
	code, out, _ = tineRun(t, "", "--repo", repo, "refs", "--json")
	var res struct {
		Refs       []struct{ Name string }
		Unreadable []struct{ Name, Path, Error string }
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Refs) != 2 || len(res.Unreadable) != 1 ||
		res.Unreadable[0].Name != "heads/x" || res.Unreadable[0].Path != "refs/heads/x" {
		t.Fatalf("refs --json: %d %v\n%s", code, err, out)
	}
	if code, out, _ := tineRun(t, "", "--repo", repo, "fsck"); code != 1 || !strings.Contains(out, "refs/heads/x is a symlink") {
		t.Fatalf("fsck: %d\n%s", code, out)
	}
}

// TestFsckStaleAfterZeroMeansZero: --stale-after 0s removes a young
// leftover whose writer cannot be probed; without the flag the 1h default
// keeps it (and warns); a negative duration is a usage error.
func TestFsckStaleAfterZeroMeansZero(t *testing.T) {
	repo, _ := initWithRun(t)
	tmp := filepath.Join(repo, "objects", "event", ".tmp-young")
	// The record wrote a storage pack: the event directory may not exist.
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := tineRun(t, "", "--repo", repo, "fsck", "--remove-stale"); code != 0 || !strings.Contains(out, "temp-file objects/event/.tmp-young") {
		t.Fatalf("fsck --remove-stale: %d\n%s", code, out)
	}
	if code, out, errs := tineRun(t, "", "--repo", repo, "fsck", "--remove-stale", "--stale-after", "0s"); code != 0 || strings.Contains(out, "temp-file") {
		t.Fatalf("fsck --remove-stale --stale-after 0s: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("--stale-after 0s kept a temp file: %v", err)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "fsck", "--remove-stale", "--stale-after=-1s"); code != 2 {
		t.Fatalf("negative --stale-after: %d %s", code, errs)
	}
}

// TestUpdateRefNameClash: creating heads/a/b beside heads/a, or heads/c
// beside heads/c/d, says the names clash and that nothing was written.
func TestUpdateRefNameClash(t *testing.T) {
	repo, run := initWithRun(t)
	if code, _, errs := tineRun(t, "", "--repo", repo, "update-ref", "heads/c/d", run); code != 0 {
		t.Fatalf("update-ref: %s", errs)
	}
	for _, name := range []string{"heads/a/b", "heads/c"} {
		code, _, errs := tineRun(t, "", "--repo", repo, "update-ref", name, run)
		if code != 1 || !strings.Contains(errs, "name clash") || !strings.Contains(errs, "nothing was written") || strings.Contains(errs, "unknown") {
			t.Fatalf("update-ref %s: %d %s", name, code, errs)
		}
		assertOneErrorLine(t, errs, "tine update-ref: ")
	}
}
