package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/internal/layoutcheck"
)

// layoutSession runs tine verbs in-process in one work directory holding a
// sha256 repository and checks, after every verb, that the repository is
// one OpenTine reads whole (layoutcheck.Check).
type layoutSession struct {
	t    *testing.T
	dir  string
	repo string
}

// run runs one verb, requires exit status want (-1: 0 or 1) and returns
// stdout; then it checks the layout.
func (s *layoutSession) run(want int, stdin string, args ...string) string {
	s.t.Helper()
	code, out, errs := tineRun(s.t, stdin, args...)
	if code != want && !(want == -1 && code <= 1) {
		s.t.Fatalf("tine %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errs)
	}
	s.check("tine " + strings.Join(args, " "))
	return out
}

// check fails the test with the layout problems found, if any.
func (s *layoutSession) check(after string) {
	s.t.Helper()
	if problems := layoutcheck.Check(context.Background(), s.repo); len(problems) > 0 {
		if len(problems) > 8 {
			problems = append(problems[:8], fmt.Sprintf("… and %d more", len(problems)-8))
		}
		s.t.Fatalf("after %s, OpenTine cannot read the repository whole:\n  %s", after, strings.Join(problems, "\n  "))
	}
}

// write creates a file in the work directory.
func (s *layoutSession) write(name, content string) string {
	s.t.Helper()
	p := filepath.Join(s.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// jsonOID returns the "oid" field of a --json result.
func jsonOID(t *testing.T, out string) string {
	t.Helper()
	var v struct {
		OID string `json:"oid"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.OID == "" {
		t.Fatalf("no oid in %q: %v", out, err)
	}
	return v.OID
}

// importStream returns a JSONL import of n events, each with an output
// blob, labelled so two streams share no object.
func importStream(label string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"kind":"tool","id":"%s%d","output":"%s output %d"}`+"\n", label, i, label, i)
	}
	return b.String()
}

// TestEveryVerbLeavesAnOpenTineRepository is the layout check over every
// verb that writes: after each, on a sha256 repository, every object tine
// holds and every object reachable from refs and reflogs is a loose file
// at objects/<type>/<2 hex>/<62 hex> that decodes and hashes to its name,
// config.json is OpenTine's bytes, nothing tine left breaks OpenTine's
// reading rules, and a copy of only what OpenTine reads passes fsck. It
// also proves the check can fail: after gc --storage-packs the objects
// are packed and the check names them; gc --no-storage-packs writes them
// back out.
func TestEveryVerbLeavesAnOpenTineRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about forty verbs")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	s := &layoutSession{t: t, dir: dir, repo: filepath.Join(dir, ".tine")}

	s.run(0, "", "init", "--object-format", "sha256")
	s.write("hello.txt", "hello\n")
	s.run(0, "", "hash-object", "-w", "hello.txt")
	s.run(0, "hello again\n", "hash-object", "-w", "--stdin")
	var paths []string
	for i := range 200 {
		paths = append(paths, s.write(fmt.Sprintf("f%03d.json", i), fmt.Sprintf(`{"i":%d,"pad":%q}`, i, strings.Repeat("x", 300))))
	}
	s.run(0, strings.Join(paths, "\n")+"\n", "hash-object", "-w", "--stdin-paths")

	s.run(0, "", "record", "--", "sh", "-c", "echo first step")
	s.run(0, "", "record", "--status", "completed", "--", "sh", "-c", "echo second step")
	s.write("event.json", `{"kind":"human","note":"looked at it"}`)
	s.run(0, "", "record", "--event", "event.json", "--ref", "heads/events")
	s.write("steps.jsonl", importStream("main", 200))
	s.run(0, "", "import", "steps.jsonl", "--ref", "heads/imported")
	s.run(0, "", "fork", "heads/main", "--from", "heads/main~1", "--ref", "experiments/retry", "--reason", "try again")
	s.run(0, "", "resume", "heads/main")
	s.run(0, "", "tag", "v1", "heads/main")
	run := strings.TrimSpace(s.run(0, "", "rev-parse", "heads/imported"))
	s.run(0, "", "update-ref", "heads/copy", run)
	s.run(0, "", "update-ref", "heads/copy2", run, "--create")
	s.run(0, "", "delete-ref", "heads/copy2")
	s.run(0, "create heads/batch "+run+"\n", "update-ref", "--stdin")

	s.run(0, "", "keygen", "--out", "ci.key", "--pub", "ci.pub")
	s.run(0, "", "annotate", "heads/main", "--set", "owner=ml")
	s.write("claim.json", `{"kind":"review","verdict":"ok"}`)
	att := jsonOID(t, s.run(0, "", "attest", "heads/main", "--claim", "claim.json", "--signer", "ci", "--json"))
	s.run(0, "", "sign", att, "--key-file", "ci.key")
	s.run(0, "", "evaluate", "heads/main", "--score", "accuracy=0.5", "--signer", "ci", "--key-file", "ci.key")
	s.run(0, "", "evaluate", "experiments/retry", "--score", "accuracy=0.95", "--signer", "ci")
	s.write("release.json", `{"version":1,"keys":{},"promotions":{"release":{"unsigned_signers":["ci"],"scores":{"accuracy":{"min":0.9}}}}}`)
	s.run(0, "", "promote", "experiments/retry", "--name", "release", "--policy", "release.json")
	s.run(0, "", "loop", "run", "--strategy", "numeric", "--name", "tune", "--width", "2", "--max-branches", "4", "--max-steps", "12")
	s.run(0, "", "index", "rebuild")
	s.run(0, "", "index", "update")

	s.write("tine-gate.yml", "version: 1\nconstraints:\n  ok:\n    kind: command\n    command: [sh, -c, \"echo fine\"]\n    phases: [stop, push, ci]\n    watch: [\"*.txt\"]\n  bad:\n    kind: command\n    command: [sh, -c, \"echo broken; exit 1\"]\n    phases: [stop, push, ci]\n    watch: [\"*.txt\"]\n")
	s.run(-1, "", "gate", "run")
	s.run(-1, "", "gate", "waive", "bad", "--reason", "known")
	s.run(-1, "", "gate", "run", "--attach", "heads/main")
	s.run(-1, "", "gate", "ci")

	// A frame of 200 events and their blobs from another sha256 repository.
	other := filepath.Join(t.TempDir(), "other")
	if code, _, errs := tineRun(t, "", "init", "--object-format", "sha256", other); code != 0 {
		t.Fatalf("init other: %s", errs)
	}
	s.write("other.jsonl", importStream("other", 200))
	otherRepo := filepath.Join(other, ".tine")
	if code, _, errs := tineRun(t, "", "--repo", otherRepo, "import", "other.jsonl"); code != 0 {
		t.Fatalf("import into other: %s", errs)
	}
	frame := filepath.Join(dir, "other.tinepack")
	if code, _, errs := tineRun(t, "", "--repo", otherRepo, "pack", "--output", frame, "heads/main"); code != 0 {
		t.Fatalf("pack other: %s", errs)
	}
	s.run(0, "", "unpack", frame)
	s.run(0, "", "pack", "--output", "main.tinepack", "--store", "heads/main")

	// Remotes: remotes.json beside config.json, tracking refs, objects
	// both ways, a shallow fetch; the other repository and a clone stay
	// OpenTine-readable too.
	s.run(0, "", "remote", "add", "origin", otherRepo)
	s.run(0, "", "remote", "list")
	s.run(0, "", "push", "origin", "heads/imported", "--all-experiments")
	s.run(0, "", "fetch", "origin")
	s.run(0, "", "fetch", "origin", "heads/imported", "--depth", "1")
	s.run(0, "", "remote", "show", "origin")
	s.run(-1, "", "pull", "origin", "heads/imported")
	for _, repo := range []string{otherRepo} {
		if problems := layoutcheck.Check(context.Background(), repo); len(problems) > 0 {
			t.Fatalf("after push, the remote is not OpenTine-readable: %q", problems)
		}
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if code, _, errs := tineRun(t, "", "clone", otherRepo, clone, "--depth", "2"); code != 0 {
		t.Fatalf("clone: %s", errs)
	}
	if problems := layoutcheck.Check(context.Background(), filepath.Join(clone, ".tine")); len(problems) > 0 {
		t.Fatalf("a clone of a sha256 repository is not OpenTine-readable: %q", problems)
	}
	s.run(0, "", "remote", "remove", "origin")

	s.run(0, "", "fsck")
	s.run(0, "", "verify-pack")
	s.run(0, "", "gc")
	s.run(0, "", "gc", "--prune=now")
	if out := s.run(1, "", "repack", "-d"); out != "" {
		t.Fatalf("a refused repack printed %q", out)
	}
	s.run(0, "", "count-objects", "-v")

	// The check can fail: with the opt-in, gc packs the loose objects,
	// which OpenTine then cannot read.
	s.runNoCheck(0, "gc", "--storage-packs")
	problems := layoutcheck.Check(context.Background(), s.repo)
	if !strings.Contains(strings.Join(problems, "\n"), "are not loose files") {
		t.Fatalf("objects packed by gc --storage-packs were not reported: %q", problems)
	}
	out := s.run(0, "", "gc", "--no-storage-packs")
	if !strings.Contains(out, "packed objects back out as loose files") {
		t.Fatalf("gc --no-storage-packs said %q", out)
	}
	s.run(0, "", "record", "--", "sh", "-c", "echo after")
	s.run(0, "", "fsck")
}

// runNoCheck runs one verb without the layout check.
func (s *layoutSession) runNoCheck(want int, args ...string) {
	s.t.Helper()
	if code, out, errs := tineRun(s.t, "", args...); code != want {
		s.t.Fatalf("tine %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errs)
	}
}
