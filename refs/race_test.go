package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// The race test re-executes the test binary: each child process is one
// writer, because guards must exclude other processes, not just goroutines.
const (
	raceRootEnv  = "TINE_REFS_RACE_ROOT"
	raceChildEnv = "TINE_REFS_RACE_CHILD"
	raceProcs    = 8
	raceRounds   = 30
	raceRef      = "heads/race"
)

// raceObjects returns the getter every process builds identically: a base
// run and one run per (child, round).
func raceObjects() (*memObjects, objects.OID, func(child, round int) objects.OID) {
	g := newMem()
	base := g.run(objects.BLAKE3, "base")
	ids := map[[2]int]objects.OID{}
	for c := 0; c < raceProcs; c++ {
		for r := 0; r < raceRounds; r++ {
			ids[[2]int{c, r}] = g.run(objects.BLAKE3, fmt.Sprintf("c%d-r%d", c, r))
		}
	}
	return g, base, func(c, r int) objects.OID { return ids[[2]int{c, r}] }
}

// barrier waits until every process has reached phase/round.
func barrier(root, phase string, round, child int) error {
	dir := filepath.Join(root, "barrier", fmt.Sprintf("%s-%d", phase, round))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(child)), nil, 0o644); err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(ents) == raceProcs {
			return nil
		}
		time.Sleep(200 * time.Microsecond)
	}
	return fmt.Errorf("barrier %s-%d timed out", phase, round)
}

// TestCASRaceChild is one writer of TestCASRaceProcesses; it does nothing
// when run directly.
func TestCASRaceChild(t *testing.T) {
	root := os.Getenv(raceRootEnv)
	if root == "" {
		t.Skip("child of TestCASRaceProcesses")
	}
	child, _ := strconv.Atoi(os.Getenv(raceChildEnv))
	g, _, mine := raceObjects()
	s := Open(root, objects.BLAKE3, g)
	ctx := context.Background()
	for r := 0; r < raceRounds; r++ {
		cur, err := s.Read(t.Context(), raceRef)
		if err != nil {
			t.Fatal(err)
		}
		if err := barrier(root, "read", r, child); err != nil {
			t.Fatal(err)
		}
		err = s.Update(ctx, raceRef, mine(child, r), cur, fmt.Sprintf("child-%d", child))
		outcome := "win"
		switch {
		case err == nil:
		case errors.Is(err, ErrStale) && !errors.Is(err, ErrLocked):
			outcome = "stale"
		case errors.Is(err, ErrLocked) && !errors.Is(err, ErrStale):
			outcome = "locked"
		default:
			t.Fatalf("round %d: unexpected error %v", r, err)
		}
		res := filepath.Join(root, "result", strconv.Itoa(r))
		os.MkdirAll(res, 0o755)
		if err := os.WriteFile(filepath.Join(res, strconv.Itoa(child)), []byte(outcome), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := barrier(root, "done", r, child); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCASRaceProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if os.Getenv(raceRootEnv) != "" {
		t.Skip("inside a child")
	}
	root := t.TempDir()
	g, base, mine := raceObjects()
	s := Open(root, objects.BLAKE3, g, WithClock(tickClock()))
	ctx := context.Background()
	if err := s.Create(ctx, raceRef, base, "parent"); err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, raceProcs)
	for c := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCASRaceChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), raceRootEnv+"="+root, raceChildEnv+"="+strconv.Itoa(c))
		out, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[c] = cmd
		defer func() {
			if t.Failed() {
				out.Seek(0, 0)
				b, _ := os.ReadFile(out.Name())
				t.Logf("child %d output:\n%s", c, b)
			}
		}()
	}
	for c, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", c, err)
		}
	}
	if t.Failed() {
		return
	}
	log := mustLog(t, s, raceRef)
	if len(log) != raceRounds+1 {
		t.Fatalf("reflog has %d rows, want %d", len(log), raceRounds+1)
	}
	prev := base
	locked := 0
	for r := 0; r < raceRounds; r++ {
		winner := -1
		for c := 0; c < raceProcs; c++ {
			b, err := os.ReadFile(filepath.Join(root, "result", strconv.Itoa(r), strconv.Itoa(c)))
			if err != nil {
				t.Fatal(err)
			}
			switch string(b) {
			case "win":
				if winner >= 0 {
					t.Fatalf("round %d: children %d and %d both won", r, winner, c)
				}
				winner = c
			case "locked":
				locked++
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", r)
		}
		row := log[r+1]
		if row.New != mine(winner, r) || row.Old != prev || row.Actor != fmt.Sprintf("child-%d", winner) {
			t.Fatalf("round %d: row %+v, want winner %d from %s", r, row, winner, prev)
		}
		prev = row.New
	}
	if got := mustRead(t, s, raceRef); got != prev {
		t.Fatalf("final value %s, want %s", got, prev)
	}
	t.Logf("%d rounds, %d lock-busy losers, the rest stale", raceRounds, locked)
	noLocks(t, s)
}
