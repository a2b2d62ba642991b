package gates_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/gates"
)

// challengeContract is a stop loop "fix" with a one-challenge gate over
// src.txt; extra constraints go before the loops.
func challengeContract(extraConstraints string, unchanged, continuations int) string {
	return extraConstraints + fmt.Sprintf("loops:\n  fix:\n    phase: stop\n    interval_seconds: 30\n    max_repair_attempts: 5\n"+
		"    max_unchanged_repairs: %d\n    max_duration_seconds: 3600\n    challenge:\n      count: 1\n      max_rounds: 1\n"+
		"      max_continuations: %d\n      watch: [src.txt, notes/**]\n", unchanged, continuations)
}

func challengeCycle(t *testing.T, dir string, r *plumbing.Repo, c *setClock, continuation bool) *gates.CycleResult {
	t.Helper()
	res, err := gates.RunCycle(context.Background(), r, "fix", gates.CycleOptions{Root: dir, Now: c.now, Continuation: continuation})
	if err != nil {
		t.Fatalf("cycle: %v", err)
	}
	return res
}

// submit writes body (with the open request's id and snapshot filled in)
// to a file and submits it.
func submit(t *testing.T, dir string, r *plumbing.Repo, c *setClock, body string) error {
	t.Helper()
	req, err := gates.ShowChallenge(r, "fix", dir)
	if err != nil {
		t.Fatalf("show: %v", err)
	}
	head, _ := json.Marshal(map[string]string{"request_id": req.RequestID, "input_snapshot": req.InputSnapshot})
	file := filepath.Join(t.TempDir(), "sub.json")
	write(t, file, strings.TrimSuffix(string(head), "}")+","+body+"}")
	_, err = gates.SubmitChallenge(context.Background(), r, "fix", dir, file, c.now)
	return err
}

const oneChallenge = `"challenges":[{"id":"c1","perspective":"p","assumption":"a","scenario":"s","expected_behavior":"e","verification_plan":"v","source_refs":["src.txt"]}]`

func resolution(outcome string) string {
	ids := ""
	if outcome == "verified" {
		ids = `,"constraint_ids":["tests"]`
	}
	return `"resolutions":[{"challenge_id":"c1","outcome":"` + outcome + `","evidence":"looked"` + ids + `}]`
}

func TestChallengeVerifiedCannotOverrideFailingGates(t *testing.T) {
	dir, r := gateProject(t, challengeContract("", 3, 8))
	write(t, filepath.Join(dir, "src.txt"), "v1")
	c := &setClock{time.Unix(1700000000, 0)}
	expect(t, challengeCycle(t, dir, r, c, false), gates.CycleChallenge, 0, 15)
	if err := submit(t, dir, r, c, oneChallenge); err != nil {
		t.Fatal(err)
	}
	expect(t, challengeCycle(t, dir, r, c, false), gates.CycleVerify, 0, 16)
	if err := submit(t, dir, r, c, resolution("verified")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "status"), "1")
	res := challengeCycle(t, dir, r, c, false)
	expect(t, res, gates.CycleRepair, 0, 10)
	if strings.Join(res.BlockingConstraints, ",") != "tests" {
		t.Fatalf("blocking %v", res.BlockingConstraints)
	}
	write(t, filepath.Join(dir, "status"), "0")
	write(t, filepath.Join(dir, "src.txt"), "v2")
	// The resolution was recorded at other inputs: verify again.
	expect(t, challengeCycle(t, dir, r, c, false), gates.CycleVerify, 1, 16)
	if err := submit(t, dir, r, c, resolution("verified")); err != nil {
		t.Fatal(err)
	}
	expect(t, challengeCycle(t, dir, r, c, false), gates.CyclePassed, 1, 0)
}

func TestChallengeUnchangedDefectNeedsHuman(t *testing.T) {
	dir, r := gateProject(t, challengeContract("", 1, 8))
	write(t, filepath.Join(dir, "src.txt"), "v1")
	c := &setClock{time.Unix(1700000000, 0)}
	challengeCycle(t, dir, r, c, false)
	if err := submit(t, dir, r, c, oneChallenge); err != nil {
		t.Fatal(err)
	}
	challengeCycle(t, dir, r, c, false)
	if err := submit(t, dir, r, c, resolution("defect")); err != nil {
		t.Fatal(err)
	}
	res := challengeCycle(t, dir, r, c, false)
	expect(t, res, gates.CycleRepair, 0, 10)
	if strings.Join(res.BlockingChallenges, ",") != "c1" {
		t.Fatalf("blocking challenges %v", res.BlockingChallenges)
	}
	expect(t, challengeCycle(t, dir, r, c, false), gates.CycleHumanRequired, 1, 12)
}

func TestChallengeContinuationBudget(t *testing.T) {
	dir, r := gateProject(t, challengeContract("", 3, 2))
	write(t, filepath.Join(dir, "src.txt"), "v1")
	c := &setClock{time.Unix(1700000000, 0)}
	expect(t, challengeCycle(t, dir, r, c, true), gates.CycleChallenge, 0, 15)
	// A new process reads the count from the journal: the budget survives.
	r2, err := plumbing.Open(filepath.Join(dir, ".tine"))
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	res := challengeCycle(t, dir, r2, c, true)
	expect(t, res, gates.CycleBudgetExhausted, 0, 13)
	if !strings.Contains(res.NextAction, "continuation budget") {
		t.Fatalf("next action %q", res.NextAction)
	}
}

func TestChallengeInputsChangingDuringEvaluationWait(t *testing.T) {
	mutate := "  mutate:\n    kind: command\n    command: [sh, -c, 'mkdir -p notes; date +%s%N >> notes/log']\n    phases: [stop]\n    watch: [status]\n"
	dir, r := gateProject(t, challengeContract(mutate, 3, 8))
	write(t, filepath.Join(dir, "src.txt"), "v1")
	c := &setClock{time.Unix(1700000000, 0)}
	res := challengeCycle(t, dir, r, c, false)
	expect(t, res, gates.CycleWaiting, 0, 11)
	if !strings.Contains(res.NextAction, "changed while the gate ran") {
		t.Fatalf("next action %q", res.NextAction)
	}
}

func TestChallengeSubmissionRefusals(t *testing.T) {
	dir, r := gateProject(t, challengeContract("", 3, 8))
	write(t, filepath.Join(dir, "src.txt"), "v1")
	c := &setClock{time.Unix(1700000000, 0)}
	if _, err := gates.ShowChallenge(r, "fix", dir); !errors.Is(err, gates.ErrNoChallengeRequest) {
		t.Fatalf("show before any cycle: %v", err)
	}
	challengeCycle(t, dir, r, c, false)
	outside := strings.Replace(oneChallenge, `"src.txt"`, `"status"`, 1)
	if err := submit(t, dir, r, c, outside); err == nil || !strings.Contains(err.Error(), `"status" is not a project file matched`) {
		t.Fatalf("outside ref: %v", err)
	}
	missing := strings.Replace(oneChallenge, `"src.txt"`, `"notes/none.md"`, 1)
	if err := submit(t, dir, r, c, missing); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing ref: %v", err)
	}
	c.advance(2 * time.Hour)
	if err := submit(t, dir, r, c, oneChallenge); err == nil || !strings.Contains(err.Error(), "duration budget") {
		t.Fatalf("after the duration: %v", err)
	}
	// A corrupt ledger fails closed, in submit and in cycle.
	path := filepath.Join(gates.GateStateDir(r), "loops", "fix.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, strings.Replace(string(raw), `"round": 1`, `"round": 7`, 1))
	if _, err := gates.RunCycle(context.Background(), r, "fix", gates.CycleOptions{Root: dir, Now: c.now}); !errors.Is(err, gates.ErrCycleJournalCorrupt) {
		t.Fatalf("cycle over a corrupt ledger: %v", err)
	}
	if _, err := gates.ShowChallenge(r, "fix", dir); !errors.Is(err, gates.ErrCycleJournalCorrupt) {
		t.Fatalf("show over a corrupt ledger: %v", err)
	}
}

func TestChallengeStopHookBlocks(t *testing.T) {
	dir, r := gateProject(t, challengeContract("", 3, 8))
	write(t, filepath.Join(dir, "src.txt"), "v1")
	if _, out := hook(t, dir, r, "claude", "session-start", `{}`); !strings.Contains(out, "tine gate challenge show fix") {
		t.Fatalf("session start on a challenge loop: %s", out)
	}
	_, out := hook(t, dir, r, "claude", "stop", `{"session_id":"s"}`)
	if !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "Loop fix: challenge") {
		t.Fatalf("stop hook on a challenge loop: %s", out)
	}
}
