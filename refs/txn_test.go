package refs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestTransactionAllOrNothing(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	a1, b1, x := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "x")
	if err := s.Create(ctx, "heads/a", a1, "t"); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "heads/b", b1, "t"); err != nil {
		t.Fatal(err)
	}
	txn := s.NewTransaction("t")
	txn.Update("heads/a", x, ExpectValue(a1))
	txn.Create("heads/c", x)
	txn.Update("heads/b", x, ExpectValue(a1)) // stale
	err := txn.Commit(ctx)
	var se *StaleError
	if !errors.As(err, &se) || se.Name != "heads/b" || se.Actual != b1 {
		t.Fatalf("Commit = %v", err)
	}
	if mustRead(t, s, "heads/a") != a1 || mustRead(t, s, "heads/b") != b1 {
		t.Fatal("a failed transaction moved a ref")
	}
	if _, err := s.Read(t.Context(), "heads/c"); !errors.Is(err, ErrNotFound) {
		t.Fatal("a failed transaction created a ref")
	}
	if len(mustLog(t, s, "heads/a")) != 1 || len(mustLog(t, s, "heads/c")) != 0 {
		t.Fatal("a failed transaction wrote reflog rows")
	}
	if txn.Commit(ctx) == nil {
		t.Fatal("second Commit accepted")
	}
	noLocks(t, s)

	// A held guard on one ref also stops the whole transaction.
	guard := filepath.Join(s.root, "refs/heads/b.lock")
	os.WriteFile(guard, nil, 0o644)
	txn = s.NewTransaction("t")
	txn.Update("heads/a", x, ExpectAny)
	txn.Update("heads/b", x, ExpectAny)
	if err := txn.Commit(ctx); !errors.Is(err, ErrLocked) || mustRead(t, s, "heads/a") != a1 {
		t.Fatalf("Commit with a held guard = %v", err)
	}
	os.Remove(guard)

	// Duplicates are refused.
	txn = s.NewTransaction("t")
	txn.Update("heads/a", x, ExpectAny)
	txn.Verify("refs/heads/a", ExpectAny)
	if err := txn.Commit(ctx); !errors.Is(err, ErrDuplicateRef) {
		t.Fatalf("duplicate = %v", err)
	}
}

func TestTransactionApplies(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	a1, b1, d1, x := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "d1"), g.run(objects.BLAKE3, "x")
	for name, id := range map[string]objects.OID{"heads/a": a1, "heads/b": b1, "heads/d": d1} {
		if err := s.Create(ctx, name, id, "t"); err != nil {
			t.Fatal(err)
		}
	}
	txn := s.NewTransaction("txn")
	txn.Update("heads/a", x, ExpectValue(a1))
	txn.Delete("heads/b", ExpectValue(b1))
	txn.Create("tags/c", x)
	txn.Verify("heads/d", ExpectValue(d1))
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, s, "heads/a") != x || mustRead(t, s, "tags/c") != x || mustRead(t, s, "heads/d") != d1 {
		t.Fatal("transaction not applied")
	}
	if _, err := s.Read(t.Context(), "heads/b"); !errors.Is(err, ErrNotFound) {
		t.Fatal("delete not applied")
	}
	if log := mustLog(t, s, "heads/a"); len(log) != 2 || log[1].Old != a1 || log[1].Actor != "txn" {
		t.Fatalf("reflog %+v", log)
	}
	if len(mustLog(t, s, "heads/d")) != 1 {
		t.Fatal("Verify wrote a row")
	}
	if ents, _ := s.journalNames(); len(ents) != 0 {
		t.Fatalf("journal left behind: %v", ents)
	}
	noLocks(t, s)
}

// crash runs a transaction up to and including its commit point, applies
// the first `applied` updates, and then "dies": it releases the journal's
// flock without finishing, as the kernel does for a killed process.
func crash(t *testing.T, s *Store, ops []*txOp, applied int, commit bool) string {
	t.Helper()
	owner, err := s.newTxnID()
	if err != nil {
		t.Fatal(err)
	}
	var guards []*heldGuard
	for _, op := range ops {
		g, err := s.lockRef(context.Background(), op.norm, owner)
		if err != nil {
			t.Fatal(err)
		}
		guards = append(guards, g)
		if op.kind == opUpdate {
			op.cur, _ = s.readRef(op.norm)
			if op.row, err = EncodeReflogRow(ReflogEntry{Actor: "dead", New: op.newID, Old: op.cur, Ref: op.norm, TimeNS: 7}); err != nil {
				t.Fatal(err)
			}
			if err := s.stage([]*txOp{{kind: opUpdate, norm: op.norm, newID: op.newID}}, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	j, err := s.writeJournal(context.Background(), owner, ops)
	if err != nil {
		t.Fatal(err)
	}
	if !commit {
		// Put the journal back under its temporary name: the crash came
		// before the rename.
		if err := os.Rename(j.path, filepath.Join(s.root, journalDirName, owner+".tmp")); err != nil {
			t.Fatal(err)
		}
	}
	for _, op := range ops[:applied] {
		if err := os.Rename(s.refPath(op.norm)+stagingSuffix, s.refPath(op.norm)); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range guards {
		g.abandon()
	}
	j.unlock()
	return owner
}

func TestJournalRollForward(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	a1, b1, x, y := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "x"), g.run(objects.BLAKE3, "y")
	for name, id := range map[string]objects.OID{"heads/a": a1, "heads/b": b1, "heads/del": b1} {
		if err := s.Create(ctx, name, id, "t"); err != nil {
			t.Fatal(err)
		}
	}
	ops := []*txOp{
		{kind: opUpdate, norm: "heads/a", newID: x},
		{kind: opUpdate, norm: "heads/b", newID: y},
		{kind: opDelete, norm: "heads/del"},
	}
	crash(t, s, ops, 1, true)
	// Until recovery the half-applied state exists on disk; a Read of a
	// guarded ref recovers first, so it is never observed.
	if got := mustRead(t, s, "heads/b"); got != y {
		t.Fatalf("heads/b after recovery = %s, want %s", got, y)
	}
	if mustRead(t, s, "heads/a") != x {
		t.Fatal("heads/a lost")
	}
	if _, err := s.Read(t.Context(), "heads/del"); !errors.Is(err, ErrNotFound) {
		t.Fatal("deletion not rolled forward")
	}
	// heads/a was renamed before the crash, so its row was lost (SPEC §2.6
	// allows that); heads/b was moved by recovery, which logged it.
	if log := mustLog(t, s, "heads/b"); len(log) != 2 || log[1].New != y || log[1].Old != b1 || log[1].Actor != "dead" {
		t.Fatalf("heads/b reflog %+v", log)
	}
	if ents, _ := s.journalNames(); len(ents) != 0 {
		t.Fatalf("journal left: %v", ents)
	}
	noLocks(t, s)
	// The refs are writable again.
	if err := s.Update(ctx, "heads/a", y, x, "t"); err != nil {
		t.Fatal(err)
	}
}

func TestUncommittedJournalRollsBack(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	a1, b1, x := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "x")
	s.Create(ctx, "heads/a", a1, "t")
	s.Create(ctx, "heads/b", b1, "t")
	ops := []*txOp{{kind: opUpdate, norm: "heads/a", newID: x}, {kind: opUpdate, norm: "heads/b", newID: x}}
	crash(t, s, ops, 0, false)
	// A guard of another, live writer must survive recovery.
	other := filepath.Join(s.root, "refs/heads/c.lock")
	os.WriteFile(other, []byte("someone-else"), 0o644)
	if err := s.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, s, "heads/a") != a1 || mustRead(t, s, "heads/b") != b1 {
		t.Fatal("uncommitted transaction applied")
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatal("recovery removed another writer's guard")
	}
	os.Remove(other)
	noLocks(t, s)
	if err := s.Update(ctx, "heads/a", x, a1, "t"); err != nil {
		t.Fatal(err)
	}
}

func TestLiveJournalLeftAlone(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	x := g.run(objects.BLAKE3, "x")
	ops := []*txOp{{kind: opUpdate, norm: "heads/a", newID: x}, {kind: opUpdate, norm: "heads/b", newID: x}}
	owner, _ := s.newTxnID()
	for _, op := range ops {
		g, err := s.lockRef(ctx, op.norm, owner)
		if err != nil {
			t.Fatal(err)
		}
		defer g.release()
		op.row, _ = EncodeReflogRow(ReflogEntry{Actor: "live", New: x, Ref: op.norm})
		s.stage([]*txOp{{kind: opUpdate, norm: op.norm, newID: x}}, false)
	}
	j, err := s.writeJournal(ctx, owner, ops)
	if err != nil {
		t.Fatal(err)
	}
	defer j.unlock()
	if err := s.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.path); err != nil {
		t.Fatal("recovery took over a live transaction's journal")
	}
	if _, err := s.readRef("heads/a"); !errors.Is(err, ErrNotFound) {
		t.Fatal("recovery applied a live transaction")
	}
}
