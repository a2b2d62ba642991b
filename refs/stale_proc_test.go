package refs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// The holder tests re-execute the test binary: the child starts a two-ref
// transaction and stops at a Commit stage, holding its guards (and, at
// "committed", its journal) until it is killed. Liveness must be seen
// across processes, and a SIGKILL must be survivable.
const (
	holderRootEnv  = "TINE_REFS_HOLDER_ROOT"
	holderReadyEnv = "TINE_REFS_HOLDER_READY"
	holderStageEnv = "TINE_REFS_HOLDER_STAGE"
	// holderSingleEnv makes the child update heads/a alone (no journal).
	holderSingleEnv = "TINE_REFS_HOLDER_SINGLE"
)

// holderObjects returns the two targets, built identically in parent and
// child.
func holderObjects() (*memObjects, objects.OID, objects.OID) {
	g := newMem()
	return g, g.run(objects.BLAKE3, "held-a"), g.run(objects.BLAKE3, "held-b")
}

// TestGuardHolderChild is the child of the holder tests; it does nothing
// when run directly.
func TestGuardHolderChild(t *testing.T) {
	root := os.Getenv(holderRootEnv)
	if root == "" {
		t.Skip("child of the holder tests")
	}
	g, a, b := holderObjects()
	s := Open(root, objects.BLAKE3, g)
	stage, ready := os.Getenv(holderStageEnv), os.Getenv(holderReadyEnv)
	commitStageHook = func(st string) {
		if st != stage {
			return
		}
		if err := os.WriteFile(ready, nil, 0o644); err != nil {
			t.Error(err)
		}
		time.Sleep(time.Hour) // until killed
	}
	tx := s.NewTransaction("child")
	tx.Update("heads/a", a, ExpectAny)
	if os.Getenv(holderSingleEnv) == "" {
		tx.Update("heads/b", b, ExpectAny)
	}
	err := tx.Commit(context.Background())
	t.Fatalf("commit returned: %v", err)
}

// startHolder starts a child that stops at stage and waits until it is
// there.
func startHolder(t *testing.T, root, stage string) *exec.Cmd {
	t.Helper()
	return startChild(t, "TestGuardHolderChild", stage, holderRootEnv+"="+root, holderStageEnv+"="+stage)
}

// startChild re-executes the test binary running the child test named,
// with env added, and waits until the child has written its ready file
// (whose path it finds in holderReadyEnv).
func startChild(t *testing.T, test, stage string, env ...string) *exec.Cmd {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns a process")
	}
	if os.Getenv(holderRootEnv) != "" {
		t.Skip("inside a child")
	}
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(append(os.Environ(), holderReadyEnv+"="+ready), env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child never reached %s:\n%s", stage, out.String())
		}
	}
}

// kill ends the child with SIGKILL, so it releases nothing itself.
func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

func TestGuardOfLiveProcessKeptDeadRemoved(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, objects.BLAKE3)
	g, a, _ := holderObjects()
	s.objs = g
	cmd := startHolder(t, s.root, "staged")
	held := []string{"refs/heads/a..lock", "refs/heads/a.lock", "refs/heads/b..lock", "refs/heads/b.lock"}
	gs, err := s.StaleGuards(ctx)
	if err != nil || len(gs) != len(held) {
		t.Fatalf("StaleGuards with a live holder: %+v, %v", gs, err)
	}
	for _, gd := range gs {
		if !gd.Alive {
			t.Errorf("%s reported dead while its writer runs", gd.Path)
		}
	}
	removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{})
	if err != nil || len(removed) != 0 {
		t.Fatalf("removed a live process's files: %v, %v", removed, err)
	}
	for _, rel := range held {
		if !exists(s, rel) {
			t.Fatalf("%s is gone while its writer runs", rel)
		}
	}
	err = s.Create(ctx, "heads/a", a, "parent")
	var le *LockedError
	if !errors.As(err, &le) || le.Foreign || !strings.Contains(err.Error(), "a running process is updating it") {
		t.Fatalf("update under a live guard: %v", err)
	}

	kill(t, cmd)
	gs, err = s.StaleGuards(ctx)
	if err != nil || len(gs) != len(held) {
		t.Fatalf("StaleGuards after the kill: %+v, %v", gs, err)
	}
	for _, gd := range gs {
		if gd.Alive {
			t.Errorf("%s reported alive after its writer was killed", gd.Path)
		}
	}
	removed, err = s.RemoveStaleGuards(ctx, RemoveOptions{})
	if err != nil || !slices.Equal(removed, held) {
		t.Fatalf("RemoveStaleGuards after the kill: %v, %v; want %v", removed, err, held)
	}
	// Killed before its commit point: nothing changed, and the refs are
	// writable again.
	for _, name := range []string{"heads/a", "heads/b"} {
		if _, err := s.Read(t.Context(), name); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s after an uncommitted crash: %v", name, err)
		}
	}
	noLocks(t, s)
	if err := s.Create(ctx, "heads/a", a, "parent"); err != nil {
		t.Fatal(err)
	}
}

func TestKilledAfterCommitRollsForward(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, objects.BLAKE3)
	g, a, b := holderObjects()
	s.objs = g
	cmd := startHolder(t, s.root, "committed")
	gs, err := s.StaleGuards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	journals := 0
	for _, gd := range gs {
		if gd.Kind == GuardJournal {
			journals++
		}
		if !gd.Alive {
			t.Errorf("%s reported dead while its writer runs", gd.Path)
		}
	}
	if journals != 1 {
		t.Fatalf("want one live journal: %+v", gs)
	}
	// Recovery leaves a live transaction alone.
	if err := s.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.readRef("heads/a"); !errors.Is(err, ErrNotFound) {
		t.Fatal("recovery applied a live transaction")
	}
	kill(t, cmd)
	removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 3 || !strings.HasPrefix(removed[0], "refs-txn/") || !strings.HasSuffix(removed[0], ".journal") ||
		removed[1] != "refs/heads/a.lock" || removed[2] != "refs/heads/b.lock" {
		t.Fatalf("removed %v: want both guards and the journal", removed)
	}
	if mustRead(t, s, "heads/a") != a || mustRead(t, s, "heads/b") != b {
		t.Fatal("the committed transaction was not rolled forward")
	}
	if log := mustLog(t, s, "heads/b"); len(log) != 1 || log[0].Actor != "child" {
		t.Fatalf("heads/b reflog %+v", log)
	}
	noLocks(t, s)
}
