package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The ref-writer crash harness re-executes the test binary as a child
// that runs one tine verb over and over, in-process, against a repository
// until it is SIGKILLed; the parent then updates the same refs the normal
// way. Environment of the child:
const (
	refsCrashRepoEnv = "TINE_REFS_CRASH_REPO"
	refsCrashModeEnv = "TINE_REFS_CRASH_MODE"
	refsCrashOIDsEnv = "TINE_REFS_CRASH_OIDS" // two run oids, space-separated
)

// refsCrashModes are the writers the harness kills: a one-ref update-ref,
// a three-ref update-ref --stdin transaction (guards, staging files and a
// journal), tag --force, and delete-ref after re-creating the ref.
var refsCrashModes = []string{"update-ref", "stdin", "tag", "delete-ref"}

// refsCrashCommand returns the i-th command line of a child in mode.
func refsCrashCommand(mode, repo string, oids [2]string, i int) (args []string, stdin string) {
	x := oids[i%2]
	switch mode {
	case "stdin":
		return []string{"--repo", repo, "update-ref", "--stdin"},
			fmt.Sprintf("update heads/t1 %s\nupdate heads/t2 %s\nupdate heads/t3 %s\n", x, x, x)
	case "tag":
		return []string{"--repo", repo, "tag", "--force", "v1", x}, ""
	case "delete-ref":
		if i%2 == 0 {
			return []string{"--repo", repo, "update-ref", "heads/d", x}, ""
		}
		return []string{"--repo", repo, "delete-ref", "heads/d"}, ""
	}
	return []string{"--repo", repo, "update-ref", fmt.Sprintf("heads/k%d", i%3), x}, ""
}

// TestRefsCrashChild is the process TestRefWritersSIGKILLed kills. It does
// nothing unless the parent set refsCrashRepoEnv. Every command must
// succeed: the child is the only writer, so a failure means a leftover of
// the previous kill was not recovered.
func TestRefsCrashChild(t *testing.T) {
	repo := os.Getenv(refsCrashRepoEnv)
	if repo == "" {
		t.Skip("child of TestRefWritersSIGKILLed")
	}
	mode := os.Getenv(refsCrashModeEnv)
	var oids [2]string
	copy(oids[:], strings.Fields(os.Getenv(refsCrashOIDsEnv)))
	for i := 0; ; i++ {
		args, stdin := refsCrashCommand(mode, repo, oids, i)
		var errb strings.Builder
		if code := run(args, strings.NewReader(stdin), io.Discard, &errb); code != 0 {
			fmt.Fprintf(os.Stderr, "refs crash child: %v exited %d: %s", args, code, errb.String())
			os.Exit(3)
		}
		fmt.Println("done") // the parent times the commands by these lines
	}
}

// TestRefWritersSIGKILLed SIGKILLs 100 ref writers at random moments,
// cycling through update-ref, update-ref --stdin (three refs at once), tag
// and delete-ref. After each kill the same refs are updated the normal way
// and must succeed with no manual step (the next writer recovers the dead
// one's guard, staging file and journal) and leave nothing of it behind;
// the three refs of the --stdin transaction are always equal (all or
// nothing); and at the end fsck finds no problem and no leftover.
func TestRefWritersSIGKILLed(t *testing.T) {
	if testing.Short() {
		t.Skip("kills re-executed test binaries")
	}
	if os.Getenv(refsCrashRepoEnv) != "" {
		t.Skip("in child mode")
	}
	const kills = 100
	rng := rand.New(rand.NewSource(20261201))
	repo, a := initWithRun(t)
	if code, _, errs := tineRun(t, "", "--repo", repo, "update-ref", "heads/b", a); code != 0 {
		t.Fatal(errs)
	}
	dir := filepath.Dir(repo)
	if err := os.WriteFile(filepath.Join(dir, "e2.json"), []byte(`{"kind":"note","text":"y"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := tineRun(t, "", "--repo", repo, "record", "--event", filepath.Join(dir, "e2.json"), "--ref", "heads/b"); code != 0 {
		t.Fatalf("record: %s", errs)
	}
	oids := [2]string{a, readRefFile(t, repo, "heads/b")}
	start := time.Now()
	recovered := 0 // kills that left a guard or journal for the next writer
	for round := range kills {
		mode := refsCrashModes[round%len(refsCrashModes)]
		cmd := exec.Command(os.Args[0], "-test.run=^TestRefsCrashChild$", "-test.count=1", "-test.timeout=10m")
		cmd.Env = append(os.Environ(), refsCrashRepoEnv+"="+repo, refsCrashModeEnv+"="+mode, refsCrashOIDsEnv+"="+oids[0]+" "+oids[1])
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan time.Time, 64)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				select {
				case lines <- time.Now():
				default: // the parent has stopped counting
				}
			}
			close(lines)
			io.Copy(io.Discard, out)
		}()
		// Kill at a random moment inside a command, whatever the load of
		// the machine: let the child finish a few commands, time the last
		// one, and kill after a random part of that time.
		took, err := refsCrashCommandTime(lines, 2+rng.Intn(3))
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d (%s): %v\n%s", round, mode, err, stderr.String())
		}
		time.Sleep(time.Duration(rng.Int63n(int64(took) + 1)))
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || strings.Contains(stderr.String(), "refs crash child:") {
			t.Fatalf("round %d (%s): child ended on its own: %v\n%s", round, mode, err, stderr.String())
		}
		if len(refsLeftovers(repo)) > 0 {
			recovered++
		}
		refsCrashNormalUpdates(t, round, mode, repo, oids[round%2])
		// Every ref the child wrote was written again, so nothing of the
		// dead writer may remain: not even after a command that found
		// nothing to change (tag --force to the tag's own target).
		if left := refsLeftovers(repo); len(left) != 0 {
			t.Fatalf("round %d (%s): left behind after the normal updates: %v", round, mode, left)
		}
	}
	code, fsckOut, errs := tineRun(t, "", "--repo", repo, "fsck")
	if code != 0 || strings.Contains(fsckOut, "stale-lock") {
		t.Fatalf("fsck after %d kills: %d\n%s%s", kills, code, fsckOut, errs)
	}
	if recovered < 10 {
		t.Fatalf("only %d of %d kills hit a writer holding a guard: the harness proved little", recovered, kills)
	}
	if left := refsLeftovers(repo); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	t.Logf("%d kills in %s; %d left a guard or journal that the next writer recovered", kills, time.Since(start).Round(time.Millisecond), recovered)
}

// refsCrashCommandTime waits until the child has finished n >= 2 commands
// and returns how long the last one took.
func refsCrashCommandTime(lines <-chan time.Time, n int) (time.Duration, error) {
	var prev, last time.Time
	timeout := time.After(2 * time.Minute)
	for i := range n {
		select {
		case at, ok := <-lines:
			if !ok {
				return 0, fmt.Errorf("child ended after %d commands", i)
			}
			prev, last = last, at
		case <-timeout:
			return 0, fmt.Errorf("child finished %d of %d commands in 2 minutes", i, n)
		}
	}
	return last.Sub(prev), nil
}

// refsLeftovers lists the guards, staging files and journals on disk.
func refsLeftovers(repo string) []string {
	left, _ := filepath.Glob(filepath.Join(repo, "refs-txn", "*.*"))
	filepath.WalkDir(filepath.Join(repo, "refs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			left = append(left, p)
		}
		return nil
	})
	return left
}

// refsCrashNormalUpdates updates the refs a killed child in mode was
// writing, as a user would right after the crash, and requires success.
func refsCrashNormalUpdates(t *testing.T, round int, mode, repo, x string) {
	t.Helper()
	must := func(stdin string, args ...string) {
		t.Helper()
		if code, _, errs := tineRun(t, stdin, append([]string{"--repo", repo}, args...)...); code != 0 {
			t.Fatalf("round %d (%s): tine %s after the kill: %d %s", round, mode, strings.Join(args, " "), code, errs)
		}
	}
	switch mode {
	case "stdin":
		// All or nothing: the transaction's refs are equal (or all absent).
		_, out, _ := tineRun(t, "", "--repo", repo, "refs", "--json", "heads/")
		var res struct{ Refs []struct{ Name, OID string } }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("round %d: refs --json: %v\n%s", round, err, out)
		}
		vals := map[string]string{}
		for _, r := range res.Refs {
			vals[r.Name] = r.OID
		}
		if vals["heads/t1"] != vals["heads/t2"] || vals["heads/t2"] != vals["heads/t3"] {
			t.Fatalf("round %d: a killed transaction was applied in part: %v", round, vals)
		}
		var b strings.Builder
		for _, name := range []string{"heads/t1", "heads/t2", "heads/t3"} {
			old := vals[name]
			if old == "" {
				old = "absent"
			}
			fmt.Fprintf(&b, "update %s %s %s\n", name, x, old)
		}
		must(b.String(), "update-ref", "--stdin")
	case "tag":
		must("", "tag", "--force", "v1", x)
	case "delete-ref":
		must("", "update-ref", "heads/d", x)
		must("", "delete-ref", "heads/d", "--old", x)
	default:
		for i := range 3 {
			must("", "update-ref", fmt.Sprintf("heads/k%d", i), x)
		}
	}
}

// readRefFile returns the oid in a ref file.
func readRefFile(t *testing.T, repo, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "refs", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
