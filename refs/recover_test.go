package refs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/objects"
)

// TestNextWriterRecoversKilledWriter SIGKILLs a writer at every stage of
// a one-ref and a two-ref update, then updates the same refs as if
// nothing happened: the next writer must recover the dead writer's
// guards, staging files and journal itself, with no manual step, and
// leave nothing behind.
func TestNextWriterRecoversKilledWriter(t *testing.T) {
	ctx := context.Background()
	for _, single := range []bool{true, false} {
		for _, stage := range []string{"guarded", "staged", "committed", "applied"} {
			if single && stage == "committed" {
				continue // a one-ref update has no journal
			}
			name := stage
			if single {
				name = "single-" + stage
			}
			t.Run(name, func(t *testing.T) {
				s, _ := newTestStore(t, objects.BLAKE3)
				g, a, b := holderObjects()
				s.objs = g
				c := g.run(objects.BLAKE3, "next")
				env := []string{holderRootEnv + "=" + s.root, holderStageEnv + "=" + stage}
				if single {
					env = append(env, holderSingleEnv+"=1")
				}
				kill(t, startChild(t, "TestGuardHolderChild", stage, env...))
				// Killed after its commit point, the transaction stands;
				// before it, nothing changed.
				wantA, wantB := objects.OID{}, objects.OID{}
				switch {
				case stage == "applied" && single:
					// Its one ref moved; nothing is left to clean but
					// the guard (a committed update leaves no staging
					// file and its ref keeps the directory).
					wantA = a
				case stage == "committed", stage == "applied":
					wantA, wantB = a, b
				}
				if stage == "applied" {
					// Killed holding only its guards: readers already see
					// the refs, and no staging file is left.
					if got := mustRead(t, s, "heads/a"); got != a {
						t.Fatalf("heads/a after a kill past apply: %s, want %s", got, a)
					}
					for _, ref := range []string{"heads/a", "heads/b"} {
						if _, err := os.Lstat(s.refPath(ref) + stagingSuffix); !errors.Is(err, os.ErrNotExist) {
							t.Fatalf("staging file of %s after a kill past apply: %v", ref, err)
						}
					}
				}
				if err := s.Update(ctx, "heads/a", c, wantA, "next"); err != nil {
					t.Fatalf("update of heads/a after the kill: %v", err)
				}
				tx := s.NewTransaction("next")
				tx.Update("heads/b", c, ExpectValue(wantB))
				tx.Verify("heads/a", ExpectValue(c))
				if err := tx.Commit(ctx); err != nil {
					t.Fatalf("update of heads/b after the kill: %v", err)
				}
				if mustRead(t, s, "heads/a") != c || mustRead(t, s, "heads/b") != c {
					t.Fatal("the updates after the kill did not land")
				}
				noLocks(t, s)
				if gs, err := s.StaleGuards(ctx); err != nil || len(gs) != 0 {
					t.Fatalf("left behind: %+v, %v", gs, err)
				}
			})
		}
	}
}

// TestShallowHolderChild is the child of
// TestNextShallowWriterRecoversKilledWriter: it stops inside an
// UpdateShallow, holding shallow.lock, until killed.
func TestShallowHolderChild(t *testing.T) {
	root := os.Getenv(holderRootEnv)
	if root == "" {
		t.Skip("child of TestNextShallowWriterRecoversKilledWriter")
	}
	s := Open(root, objects.BLAKE3, newMem())
	err := s.UpdateShallow(context.Background(), func(cur []objects.OID) ([]objects.OID, error) {
		if err := os.WriteFile(os.Getenv(holderReadyEnv), nil, 0o644); err != nil {
			return nil, err
		}
		time.Sleep(time.Hour) // until killed
		return cur, nil
	})
	t.Fatalf("UpdateShallow returned: %v", err)
}

func TestNextShallowWriterRecoversKilledWriter(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	cmd := startChild(t, "TestShallowHolderChild", "shallow", holderRootEnv+"="+s.root)
	if err := writeShallow(ctx, s, nil); !errors.Is(err, ErrLocked) {
		t.Fatalf("shallow update beside a live writer: %v", err)
	}
	kill(t, cmd)
	// A temporary file of the rewrite the writer might have been doing.
	tmp := filepath.Join(s.root, ".tmp-shallow-1")
	if err := os.WriteFile(tmp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := g.run(objects.BLAKE3, "boundary")
	if err := writeShallow(ctx, s, []objects.OID{id}); err != nil {
		t.Fatalf("shallow update after the writer was killed: %v", err)
	}
	if ids, err := s.ReadShallow(); err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("shallow %v, %v", ids, err)
	}
	if gs, err := s.StaleGuards(ctx); err != nil || len(gs) != 0 {
		t.Fatalf("left behind: %+v, %v", gs, err)
	}
}

// writeDeadGuard leaves a guard as a tine writer killed while holding it
// does: read-only, holding owner, flocked by nobody.
func writeDeadGuard(t *testing.T, s *Store, ref, owner string) string {
	t.Helper()
	p := s.refPath(ref) + guardSuffix
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(owner), guardPerm); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDeadGuardRecoveredByNextWriter leaves the files of dead writers in
// every shape (a guard with its staging file, a guard alone, a guard with
// an uncommitted journal) and requires plain updates to succeed.
func TestDeadGuardRecoveredByNextWriter(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1, r2 := g.run(objects.BLAKE3, "1"), g.run(objects.BLAKE3, "2")
	if err := s.Create(ctx, "heads/staged", r1, "t"); err != nil {
		t.Fatal(err)
	}
	writeDeadGuard(t, s, "heads/staged", "0123456789abcdef0123456789abcdef")
	if err := os.WriteFile(s.refPath("heads/staged")+stagingSuffix, EncodeRefFile(r2), 0o644); err != nil {
		t.Fatal(err)
	}
	writeDeadGuard(t, s, "tags/deep/alone", "fedcba9876543210fedcba9876543210")
	// A transaction killed while writing its journal: torn, uncommitted.
	owner := "00112233445566778899aabbccddeeff"
	writeDeadGuard(t, s, "heads/txn", owner)
	if err := os.MkdirAll(filepath.Join(s.root, journalDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.root, journalDirName, owner+".tmp"), []byte(`{"version":1,"ow`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, "heads/staged", r2, r1, "t"); err != nil {
		t.Fatalf("update beside a dead writer's guard and staging file: %v", err)
	}
	if err := s.Create(ctx, "tags/deep/alone", r1, "t"); err != nil {
		t.Fatalf("create beside a dead writer's guard: %v", err)
	}
	if err := s.Create(ctx, "heads/txn", r1, "t"); err != nil {
		t.Fatalf("create beside a dead transaction: %v", err)
	}
	if err := s.Delete(ctx, "heads/txn", ExpectValue(r1)); err != nil {
		t.Fatal(err)
	}
	noLocks(t, s)
	if gs, err := s.StaleGuards(ctx); err != nil || len(gs) != 0 {
		t.Fatalf("left behind: %+v, %v", gs, err)
	}
}

// TestLiveJournalKeepsItsGuards: a guard nobody flocks whose transaction
// still has a journal flocked by a live writer (between dropping its guards'
// flocks and its journal's) is that transaction's, not a leftover.
func TestLiveJournalKeepsItsGuards(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	owner := "00112233445566778899aabbccddeeff"
	guard := writeDeadGuard(t, s, "heads/main", owner)
	if err := os.MkdirAll(filepath.Join(s.root, journalDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(s.root, journalDirName, owner+".journal")
	if err := os.WriteFile(journal, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(journal)
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer fl.Unlock()
	err := s.Create(ctx, "heads/main", g.run(objects.BLAKE3, "1"), "t")
	var le *LockedError
	if !errors.As(err, &le) || le.Foreign {
		t.Fatalf("update beside a live transaction's guard: %v", err)
	}
	if removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{}); err != nil || len(removed) != 0 {
		t.Fatalf("RemoveStaleGuards: %v, %v", removed, err)
	}
	if _, err := os.Lstat(guard); err != nil {
		t.Fatal("a live transaction's guard was removed")
	}
}

// TestForeignGuardIsNotTakenForDead: a guard tine did not create (OpenTine
// takes no flock) may belong to a live writer, so writers leave it and say
// so; RemoveStaleGuards removes it only by age.
func TestForeignGuardIsNotTakenForDead(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	guard := s.refPath("heads/main") + guardSuffix
	if err := os.WriteFile(guard, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := g.run(objects.BLAKE3, "1")
	err := s.Create(ctx, "heads/main", r1, "t")
	var le *LockedError
	if !errors.As(err, &le) || !le.Foreign || !strings.Contains(err.Error(), "not created by tine") {
		t.Fatalf("update beside a foreign guard: %v", err)
	}
	gs, err := s.StaleGuards(ctx)
	if err != nil || len(gs) != 1 || !gs[0].Foreign || gs[0].Alive {
		t.Fatalf("StaleGuards: %+v, %v", gs, err)
	}
	if removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{OlderThan: time.Now().Add(-time.Hour)}); err != nil || len(removed) != 0 {
		t.Fatalf("a young foreign guard was removed: %v, %v", removed, err)
	}
	if removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{}); err != nil || len(removed) != 1 {
		t.Fatalf("RemoveStaleGuards without a cutoff: %v, %v", removed, err)
	}
	if err := s.Create(ctx, "heads/main", r1, "t"); err != nil {
		t.Fatal(err)
	}
}

// TestGuardsAreReadOnly: the guard a writer holds is read-only, the
// mark that tells it from a foreign tool's.
func TestGuardsAreReadOnly(t *testing.T) {
	s, _ := newTestStore(t, objects.BLAKE3)
	g, err := s.lockRef(context.Background(), "heads/main", "0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	defer g.release()
	fi, err := os.Lstat(g.path)
	if err != nil || !ownGuard(fi) {
		t.Fatalf("guard %v, %v: not marked as tine's", fi, err)
	}
}

// TestReadRecoveryHonoursContext: a Read that must first roll a dead
// writer's transaction forward does so under the caller's context, so a
// cancelled caller is not held up by recovery and changes nothing.
func TestReadRecoveryHonoursContext(t *testing.T) {
	s, g := newTestStore(t, objects.BLAKE3)
	a1, b1, x, y := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "x"), g.run(objects.BLAKE3, "y")
	mustCreate(t, s, "heads/a", a1)
	mustCreate(t, s, "heads/b", b1)
	crash(t, s, []*txOp{{kind: opUpdate, norm: "heads/a", newID: x}, {kind: opUpdate, norm: "heads/b", newID: y}}, 1, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Read(ctx, "heads/b"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context = %v, want context.Canceled", err)
	}
	if ents, _ := s.journalNames(); len(ents) != 1 {
		t.Fatalf("a cancelled Read touched the journal: %v", ents)
	}
	if got := mustRead(t, s, "heads/b"); got != y {
		t.Fatalf("heads/b = %s, want %s after recovery", got, y)
	}
}
