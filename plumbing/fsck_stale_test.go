package plumbing

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/objects"
)

// liveGuard creates the guard rel and flocks it as a running writer does
// (package refs holds an flock on each guard for its writer's life). The
// returned func is the writer finishing without removing it, as a crash
// would.
func liveGuard(t *testing.T, r *Repo, rel string) func() {
	t.Helper()
	p := filepath.Join(r.Root(), filepath.FromSlash(rel))
	writeFile(t, p, []byte("0123456789abcdef0123456789abcdef"))
	fl := flock.New(p, flock.SetFlag(os.O_RDONLY))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("flock %s: %v, %v", rel, ok, err)
	}
	t.Cleanup(func() { fl.Unlock() })
	return func() { fl.Unlock() }
}

func TestFsckRemoveStaleSparesLiveWriters(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run, _ := putChainRun(t, r, "a", 1)
		for _, ref := range []string{"heads/main", "heads/other"} {
			if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: ref, New: run.String()}); err != nil {
				t.Fatal(err)
			}
		}
		die := liveGuard(t, r, "refs/heads/main.lock")
		writeFile(t, filepath.Join(r.Root(), "refs", "heads", "other.lock"), []byte("fedcba9876543210fedcba9876543210"))
		writeFile(t, filepath.Join(r.Root(), "refs", "heads", "other..lock"), []byte(run.String()+"\n"))
		writeFile(t, filepath.Join(r.Root(), "logs", "heads", ".tmp-old"), []byte("x"))

		res := fsckOf(t, r, FsckOptions{RemoveStale: true, StaleAfter: -1})
		want := []string{"logs/heads/.tmp-old", "refs/heads/other..lock", "refs/heads/other.lock"}
		if got := slices.Sorted(slices.Values(res.Removed)); !slices.Equal(got, want) {
			t.Fatalf("removed %v, want %v (never the live writer's guard)", got, want)
		}
		if _, err := os.Stat(filepath.Join(r.Root(), "refs", "heads", "main.lock")); err != nil {
			t.Fatal("the live writer's guard was removed")
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/other", New: run.String(), Old: run.String()}); err != nil {
			t.Fatalf("update after removing a dead guard: %v", err)
		}
		// The writer dies: now its guard goes too.
		die()
		res = fsckOf(t, r, FsckOptions{RemoveStale: true, StaleAfter: -1})
		if !slices.Equal(res.Removed, []string{"refs/heads/main.lock"}) {
			t.Fatalf("after the writer died: removed %v", res.Removed)
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String(), Old: run.String()}); err != nil {
			t.Fatal(err)
		}
	})
}

// deadGuard leaves the guard rel as a tine writer killed while holding it
// does: read-only (tine's guards are), holding a transaction id, and
// flocked by nobody.
func deadGuard(t *testing.T, r *Repo, rel, content string) {
	t.Helper()
	p := filepath.Join(r.Root(), filepath.FromSlash(rel))
	writeFile(t, p, []byte(content))
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
}

func TestStaleGuardWarnings(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	liveGuard(t, r, "refs/heads/live.lock")
	deadGuard(t, r, "refs/heads/dead.lock", "fedcba9876543210fedcba9876543210")
	deadGuard(t, r, "shallow.lock", "")
	writeFile(t, filepath.Join(r.Root(), "refs", "heads", "foreign.lock"), nil)
	later := time.Now().Add(2 * time.Hour)
	f := &fsck{ctx: context.Background(), r: r, opt: FsckOptions{Now: func() time.Time { return later }}, res: &FsckResult{}}
	if err := f.staleGuardWarnings(); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ ref, text string }{
		"refs/heads/live.lock":    {"heads/live", "guard of a running writer, 2h0m0s old"},
		"refs/heads/dead.lock":    {"heads/dead", "guard left by a dead writer, 2h0m0s old: the next update removes it"},
		"shallow.lock":            {"", "shallow left by a dead writer"},
		"refs/heads/foreign.lock": {"heads/foreign", "guard not created by tine"},
	}
	if len(f.res.Warnings) != len(want) {
		t.Fatalf("warnings %+v", f.res.Warnings)
	}
	for _, w := range f.res.Warnings {
		exp, ok := want[w.Path]
		if !ok || w.Code != WarnStaleLock || w.Ref != exp.ref || !strings.Contains(w.Message, exp.text) {
			t.Errorf("warning %+v, want ref %q and %q", w, exp.ref, exp.text)
		}
		if !strings.Contains(w.Message, "running") && !strings.Contains(w.Message, "tine fsck --remove-stale") {
			t.Errorf("a dead writer's warning does not say how to recover: %q", w.Message)
		}
	}
	if len(f.res.Problems) != 0 {
		t.Fatalf("guards are not problems: %+v", f.res.Problems)
	}
}

// TestFsckRemoveStaleAgeRules: a dead tine writer's guard and staging
// file go whatever their age, even under the default age cutoff; a young
// temp file (whose writer cannot be probed) stays under the cutoff and
// goes with StaleAfter 0, which means 0, not the default.
func TestFsckRemoveStaleAgeRules(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	deadGuard(t, r, "refs/heads/dead.lock", "fedcba9876543210fedcba9876543210")
	writeFile(t, filepath.Join(r.Root(), "refs", "heads", "dead..lock"), []byte("x\n"))
	deadGuard(t, r, "shallow.lock", "")
	tmp := filepath.Join(r.Root(), "objects", "event", ".tmp-young")
	writeFile(t, tmp, []byte("half"))
	res := fsckOf(t, r, FsckOptions{RemoveStale: true, StaleAfter: DefaultStaleAfter})
	want := []string{"refs/heads/dead..lock", "refs/heads/dead.lock", "shallow.lock"}
	if got := slices.Sorted(slices.Values(res.Removed)); !slices.Equal(got, want) || res.RemovedTemp != 0 {
		t.Fatalf("with the default cutoff: removed %v and %d temp files; want %v and none", got, res.RemovedTemp, want)
	}
	if findProblem(res.Warnings, WarnTempFile) == nil {
		t.Fatalf("the young temp file it kept is not warned about: %+v", res.Warnings)
	}
	res = fsckOf(t, r, FsckOptions{RemoveStale: true, StaleAfter: 0})
	if res.RemovedTemp != 1 || len(res.Warnings) != 0 {
		t.Fatalf("StaleAfter 0: %+v", res)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temp file still there: %v", err)
	}
}
