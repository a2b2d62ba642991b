package runs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// recordedRepo makes a repository whose heads/main holds the given shell
// scripts recorded one after another with Record.
func recordedRepo(t *testing.T, scripts ...string) (*plumbing.Repo, []*RecordResult) {
	t.Helper()
	return recordedRepoAlgo(t, "", scripts...)
}

// recordedRepoAlgo is recordedRepo in a repository of hash profile algo
// ("" for the default).
func recordedRepoAlgo(t *testing.T, algo objects.Algo, scripts ...string) (*plumbing.Repo, []*RecordResult) {
	t.Helper()
	dir := t.TempDir()
	r, _, err := plumbing.Init(dir, algo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var out []*RecordResult
	for _, s := range scripts {
		res, err := Record(context.Background(), r, RecordOptions{Argv: []string{"sh", "-c", s}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			t.Fatalf("record %q: %v", s, err)
		}
		out = append(out, res)
	}
	return r, out
}

func TestVerifyGoodRun(t *testing.T) {
	r, recs := recordedRepo(t, "echo one", "echo two >&2; exit 3")
	res, err := VerifyRevision(context.Background(), r, "main")
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Drift) != 0 {
		t.Fatalf("drift in a fresh repository: %+v", res.Drift)
	}
	// One run, two events, their stdout and stderr blobs (the empty blob
	// is shared by both events).
	if res.Run != recs[1].Run || res.ByType["run"] != 1 || res.ByType["event"] != 2 || res.ByType["blob"] < 3 {
		t.Fatalf("walk: %+v", res)
	}
	// REV~N names a derived run, checked in memory.
	back, err := VerifyRevision(context.Background(), r, "main~1")
	if err != nil {
		t.Fatal(err)
	}
	if !back.OK || back.ByType["event"] != 1 {
		t.Fatalf("main~1: %+v", back)
	}
}

func TestVerifyCorruptObject(t *testing.T) {
	// A sha256 repository keeps every object a loose file (so OpenTine
	// reads it), which the test damages and removes; where appends write
	// storage packs, record stores the blob in the append's pack.
	r, recs := recordedRepoAlgo(t, objects.SHA256, "echo one", "echo two")
	victim, err := objects.ParseOID(recs[0].Stdout)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := objects.LoosePath(victim)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.Root(), filepath.FromSlash(rel))
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(stored), "one", "0ne", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := VerifyRevision(context.Background(), r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if res.OK {
		t.Fatal("corrupt blob not detected")
	}
	var found bool
	for _, d := range res.Drift {
		if d.Object == victim.String() {
			found = true
			if d.Problem != plumbing.ProblemObjectCorrupt || d.Reason != string(objects.ReasonEnvelopeOidMismatch) || d.LinkedFrom != recs[0].Event {
				t.Fatalf("drift %+v", d)
			}
		}
	}
	if !found {
		t.Fatalf("drift does not name %s: %+v", victim, res.Drift)
	}
	// Removing it entirely is a missing link.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	res, err = VerifyRevision(context.Background(), r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !hasDrift(res, victim.String(), plumbing.ProblemMissingLink) || !hasDrift(res, recs[0].Event, plumbing.ProblemObjectInvalid) {
		t.Fatalf("missing blob: %+v", res.Drift)
	}
}

func hasDrift(res *VerifyResult, oid, problem string) bool {
	for _, d := range res.Drift {
		if d.Object == oid && d.Problem == problem {
			return true
		}
	}
	return false
}

func TestRerunDeterministic(t *testing.T) {
	r, _ := recordedRepo(t,
		"echo hello > note.txt; echo made",
		"cat note.txt; echo warn >&2; exit 3",
	)
	// The model step is not a command: skipped.
	if _, err := AppendEvent(context.Background(), r, AppendEventOptions{Data: []byte(`{"kind":"model","model":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	res, err := RerunRevision(context.Background(), r, "main", RerunOptions{Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Reran != 2 || res.Skipped != 1 {
		t.Fatalf("rerun: %+v", res)
	}
	for _, e := range res.Events {
		if e.Status != RerunSame || e.ExitDrift || e.StdoutDrift || e.StderrDrift {
			t.Fatalf("event %+v", e)
		}
	}
	if res.Events[1].RecordedExit != 3 || res.Events[1].ExitCode != 3 {
		t.Fatalf("exit codes %+v", res.Events[1])
	}
}

func TestRerunNondeterministic(t *testing.T) {
	// $$ is the shell's pid: different on every run.
	r, _ := recordedRepo(t, "echo pid $$", "exit 0")
	res, err := RerunRevision(context.Background(), r, "main", RerunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Reran != 2 {
		t.Fatalf("rerun: %+v", res)
	}
	e := res.Events[0]
	if e.Status != RerunDrift || !e.StdoutDrift || e.ExitDrift || e.Stdout == nil || !strings.Contains(e.Stdout.Unified, "-pid ") || !strings.Contains(e.Stdout.Unified, "+pid ") {
		t.Fatalf("pid event %+v %+v", e, e.Stdout)
	}
	if res.Events[1].Status != RerunSame {
		t.Fatalf("exit 0 event %+v", res.Events[1])
	}
}

func TestRerunExitDriftAndTimeout(t *testing.T) {
	// Recorded without CODE and SLOW; rerun with them set, so the first
	// command now exits 5 and the second starts two sleepers that only a
	// process-group kill ends in time.
	r, _ := recordedRepo(t, "exit ${CODE:-0}", `if [ -n "$SLOW" ]; then sleep 30 & sleep 30; fi`)
	env := []string{"PATH=" + os.Getenv("PATH"), "CODE=5", "SLOW=1"}
	start := time.Now()
	res, err := RerunRevision(context.Background(), r, "main", RerunOptions{Env: env, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("timeout did not kill the process group: took %s", took)
	}
	if e := res.Events[0]; e.Status != RerunDrift || !e.ExitDrift || e.RecordedExit != 0 || e.ExitCode != 5 || e.StdoutDrift {
		t.Fatalf("first %+v", e)
	}
	if e := res.Events[1]; e.Status != RerunTimeout || res.OK {
		t.Fatalf("second %+v", e)
	}
}
