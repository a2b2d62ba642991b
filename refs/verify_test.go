package refs

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestVerifyRecoversKilledWriter: a command that finds nothing to change
// (`tine tag --force v1 X` with tags/v1 already at X) must still recover
// what a killed writer of the ref left: a guard with its staging file
// (killed before the rename) or a guard alone (killed after it, before
// removing the guard). Store.Verify changes nothing and leaves nothing
// behind. TestRefWritersSIGKILLed (cmd/tine) found the leftover: a no-op
// tag after the kill left the dead writer's guard for fsck to report.
func TestVerifyRecoversKilledWriter(t *testing.T) {
	ctx := context.Background()
	for _, stage := range []string{"guarded", "staged"} {
		t.Run("killed-"+stage, func(t *testing.T) {
			s, _ := newTestStore(t, objects.BLAKE3)
			g, _, _ := holderObjects()
			s.objs = g
			kill(t, startChild(t, "TestGuardHolderChild", stage,
				holderRootEnv+"="+s.root, holderStageEnv+"="+stage, holderSingleEnv+"=1"))
			if gs, err := s.StaleGuards(ctx); err != nil || len(gs) == 0 {
				t.Fatalf("the killed writer left nothing to recover: %+v, %v", gs, err)
			}
			// Killed before its rename: heads/a was never created.
			if err := s.Verify(ctx, "heads/a", ExpectAbsent); err != nil {
				t.Fatalf("Verify after the kill: %v", err)
			}
			if _, err := s.Read(ctx, "heads/a"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Verify changed the ref: %v", err)
			}
			noLocks(t, s)
			if gs, err := s.StaleGuards(ctx); err != nil || len(gs) != 0 {
				t.Fatalf("left behind: %+v, %v", gs, err)
			}
		})
	}
	t.Run("killed-after-rename", func(t *testing.T) {
		s, g := newTestStore(t, objects.BLAKE3)
		x := g.run(objects.BLAKE3, "x")
		if err := s.Create(ctx, "tags/v1", x, "t"); err != nil {
			t.Fatal(err)
		}
		// The writer renamed its staging file over the ref and died
		// holding the guard.
		writeDeadGuard(t, s, "tags/v1", "0123456789abcdef0123456789abcdef")
		if err := s.Verify(ctx, "tags/v1", ExpectValue(x)); err != nil {
			t.Fatalf("Verify after the kill: %v", err)
		}
		if mustRead(t, s, "tags/v1") != x || len(mustLog(t, s, "tags/v1")) != 1 {
			t.Fatal("Verify changed the ref or its reflog")
		}
		noLocks(t, s)
		if gs, err := s.StaleGuards(ctx); err != nil || len(gs) != 0 {
			t.Fatalf("left behind: %+v, %v", gs, err)
		}
	})
}

// TestVerifyChecksUnderTheGuard: Verify fails, changing nothing, when a
// live writer holds the guard or the value differs.
func TestVerifyChecksUnderTheGuard(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	x, y := g.run(objects.BLAKE3, "x"), g.run(objects.BLAKE3, "y")
	if err := s.Create(ctx, "tags/v1", x, "t"); err != nil {
		t.Fatal(err)
	}
	var se *StaleError
	if err := s.Verify(ctx, "tags/v1", ExpectValue(y)); !errors.As(err, &se) || se.Actual != x {
		t.Fatalf("Verify of a wrong value: %v", err)
	}
	held, err := s.lockRef(ctx, "tags/v1", "0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	var le *LockedError
	if err := s.Verify(ctx, "tags/v1", ExpectValue(x)); !errors.As(err, &le) || le.Foreign {
		t.Fatalf("Verify beside a live writer: %v", err)
	}
	if _, err := os.Lstat(held.path); err != nil {
		t.Fatalf("Verify removed a live writer's guard: %v", err)
	}
	held.release()
	if mustRead(t, s, "tags/v1") != x || len(mustLog(t, s, "tags/v1")) != 1 {
		t.Fatal("Verify changed the ref or its reflog")
	}
	noLocks(t, s)
}
