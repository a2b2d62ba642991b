package gates_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/gates"
)

// setClock is a clock a test moves by hand.
type setClock struct{ t time.Time }

func (c *setClock) now() time.Time          { return c.t }
func (c *setClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func loopContract(attempts, unchanged int, duration string) string {
	return "loops:\n  fix:\n    phase: stop\n    interval_seconds: 30\n    max_repair_attempts: " + strconv.Itoa(attempts) +
		"\n    max_unchanged_repairs: " + strconv.Itoa(unchanged) + "\n    max_duration_seconds: " + duration + "\n"
}

func cycle(t *testing.T, dir string, r *plumbing.Repo, c *setClock) *gates.CycleResult {
	t.Helper()
	res, err := gates.RunCycle(context.Background(), r, "fix", gates.CycleOptions{Root: dir, Now: c.now})
	if err != nil {
		t.Fatalf("cycle: %v", err)
	}
	return res
}

func expect(t *testing.T, res *gates.CycleResult, state string, attempt, code int) {
	t.Helper()
	if res.State != state || res.RepairAttempt != attempt || res.ExitCode() != code {
		t.Fatalf("got %s attempt %d exit %d (%s), want %s attempt %d exit %d", res.State, res.RepairAttempt, res.ExitCode(), res.NextAction, state, attempt, code)
	}
}

func TestCycleRepairBudget(t *testing.T) {
	dir, r := gateProject(t, loopContract(2, 5, "3600"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "1")
	res := cycle(t, dir, r, c)
	expect(t, res, gates.CycleRepair, 0, 10)
	if len(res.BlockingConstraints) != 1 || res.BlockingConstraints[0] != "tests" || res.GateRun == "" || res.Observation != 1 {
		t.Fatalf("result %+v", res)
	}
	c.advance(time.Minute)
	write(t, filepath.Join(dir, "src.txt"), "attempt 1")
	expect(t, cycle(t, dir, r, c), gates.CycleRepair, 1, 10)
	c.advance(time.Minute)
	write(t, filepath.Join(dir, "src.txt"), "attempt 2")
	res = cycle(t, dir, r, c)
	expect(t, res, gates.CycleBudgetExhausted, 2, 13)
	if res.Observation != 3 {
		t.Errorf("observation %d", res.Observation)
	}
}

func TestCycleUnchangedRepair(t *testing.T) {
	dir, r := gateProject(t, loopContract(5, 1, "3600"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "1")
	expect(t, cycle(t, dir, r, c), gates.CycleRepair, 0, 10)
	c.advance(time.Minute)
	expect(t, cycle(t, dir, r, c), gates.CycleHumanRequired, 1, 12)
}

func TestCyclePendingPollsWithoutRepairs(t *testing.T) {
	dir, r := gateProject(t, loopContract(1, 1, "3600"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "75")
	first := cycle(t, dir, r, c)
	expect(t, first, gates.CycleWaiting, 0, 11)
	if first.WakeAfterSeconds != 30 {
		t.Fatalf("wake %v", first.WakeAfterSeconds)
	}
	// Within the interval nothing runs: the same gate run, less to wait.
	c.advance(10 * time.Second)
	res := cycle(t, dir, r, c)
	expect(t, res, gates.CycleWaiting, 0, 11)
	if res.GateRun != first.GateRun || res.WakeAfterSeconds != 20 || res.Observation != 2 {
		t.Fatalf("fast path: %+v", res)
	}
	// After the interval it runs again; pending never consumes a repair.
	c.advance(30 * time.Second)
	res = cycle(t, dir, r, c)
	expect(t, res, gates.CycleWaiting, 0, 11)
	if res.GateRun == first.GateRun {
		t.Fatal("no new evaluation after the interval")
	}
	write(t, filepath.Join(dir, "status"), "0")
	c.advance(time.Second)
	expect(t, cycle(t, dir, r, c), gates.CyclePassed, 0, 0)
}

func TestCycleDurationBudgetAndFreshTask(t *testing.T) {
	dir, r := gateProject(t, loopContract(5, 5, "100"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "1")
	expect(t, cycle(t, dir, r, c), gates.CycleRepair, 0, 10)
	c.advance(101 * time.Second)
	write(t, filepath.Join(dir, "src.txt"), "changed")
	res := cycle(t, dir, r, c)
	expect(t, res, gates.CycleBudgetExhausted, 1, 13)
	if res.NextAction != "The loop duration budget is exhausted. Require a human decision." {
		t.Errorf("action %q", res.NextAction)
	}
	// Passing ends the task; a later change starts a fresh budget.
	write(t, filepath.Join(dir, "status"), "0")
	expect(t, cycle(t, dir, r, c), gates.CyclePassed, 1, 0)
	write(t, filepath.Join(dir, "status"), "1")
	c.advance(time.Second)
	res = cycle(t, dir, r, c)
	expect(t, res, gates.CycleRepair, 0, 10)
	if res.Observation != 1 {
		t.Errorf("fresh journal observation %d", res.Observation)
	}
}

func TestCycleErrorsFailClosed(t *testing.T) {
	dir, r := gateProject(t, loopContract(5, 5, "100"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "not-a-number")
	// "exit not-a-number" is a shell error (exit 2), so make the command
	// unstartable instead for an environment error.
	write(t, filepath.Join(dir, "tine-gate.yml"), "version: 1\nconstraints:\n  tests: {kind: command, command: [./missing-tool], phases: [stop]}\n"+loopContract(5, 5, "100"))
	expect(t, cycle(t, dir, r, c), gates.CycleError, 0, 14)

	path := filepath.Join(r.Root(), "gate", "loops", "fix.json")
	write(t, path, `{"schema_version":1,"loop":"fix","loop":"fix"}`)
	_, err := gates.RunCycle(context.Background(), r, "fix", gates.CycleOptions{Root: dir, Now: c.now})
	if !errors.Is(err, gates.ErrCycleJournalCorrupt) {
		t.Fatalf("corrupt journal: %v", err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != `{"schema_version":1,"loop":"fix","loop":"fix"}` {
		t.Errorf("corrupt journal rewritten: %s", raw)
	}
	if res := gates.CycleErrorResult("fix", err); res.ExitCode() != 14 || res.State != gates.CycleError {
		t.Errorf("error result %+v", res)
	}
	for _, name := range []string{"../x", "a/b", "", "nope"} {
		if _, err := gates.RunCycle(context.Background(), r, name, gates.CycleOptions{Root: dir, Now: c.now}); !errors.Is(err, gates.ErrGateLoopName) {
			t.Errorf("loop %q: %v", name, err)
		}
	}
}

func TestCycleContractChangeResetsBudget(t *testing.T) {
	dir, r := gateProject(t, loopContract(1, 1, "3600"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "1")
	expect(t, cycle(t, dir, r, c), gates.CycleRepair, 0, 10)
	raw, _ := os.ReadFile(filepath.Join(dir, "tine-gate.yml"))
	write(t, filepath.Join(dir, "tine-gate.yml"), strings.Replace(string(raw), "interval_seconds: 30", "interval_seconds: 31", 1))
	res := cycle(t, dir, r, c)
	if res.Observation != 1 || res.State != gates.CycleRepair {
		t.Fatalf("after contract change: %+v", res)
	}
}
