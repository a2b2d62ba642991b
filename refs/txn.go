package refs

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

type opKind uint8

const (
	opUpdate opKind = iota
	opDelete
	opVerify
)

// txOp is one recorded operation of a Transaction.
type txOp struct {
	kind   opKind
	name   string // as given
	norm   string // normalized, set by Commit
	newID  objects.OID
	expect Expect
	cur    objects.OID // value under the guard, set by Commit
	row    []byte      // reflog row, for updates
	// held is the target of an UpdateHeld: checked in memory and for
	// presence instead of read back.
	held *objects.Object
}

// Transaction is a set of ref updates, deletions and checks applied all or
// nothing (see the package documentation for the journal that makes this
// survive a crash). Record operations, then Commit once. Operations are not
// checked until Commit.
type Transaction struct {
	s     *Store
	actor string
	ops   []txOp
	done  bool
}

// NewTransaction starts a transaction whose reflog rows name actor.
func (s *Store) NewTransaction(actor string) *Transaction {
	return &Transaction{s: s, actor: actor}
}

// Update records moving name to newID if its value meets expect.
func (t *Transaction) Update(name string, newID objects.OID, expect Expect) {
	t.ops = append(t.ops, txOp{kind: opUpdate, name: name, newID: newID, expect: expect})
}

// UpdateHeld records moving name to o if its value meets expect, where o
// is an object the caller holds and has already stored durably (a loop's
// checkpoint moving many refs to the runs it has just written). Commit
// checks o as it checks a fetched target (its oid, CheckTarget) but on the
// caller's copy, and takes the caller's word that the store has it: reading
// every such target back would rebuild and re-hash what was just written.
// The caller must hold the repository's writers' lock from the write to the
// Commit (the store's Put does), so gc cannot prune o in between.
func (t *Transaction) UpdateHeld(name string, o *objects.Object, expect Expect) {
	if o == nil {
		t.Update(name, objects.OID{}, expect) // refused by Commit: no target
		return
	}
	t.ops = append(t.ops, txOp{kind: opUpdate, name: name, newID: o.ID, expect: expect, held: o})
}

// Create records creating name at newID; the ref must not exist.
func (t *Transaction) Create(name string, newID objects.OID) {
	t.Update(name, newID, ExpectAbsent)
}

// Delete records removing name if its value meets expect.
func (t *Transaction) Delete(name string, expect Expect) {
	t.ops = append(t.ops, txOp{kind: opDelete, name: name, expect: expect})
}

// Verify records a check that name's value meets expect; the ref is
// guarded for the whole commit but not changed.
func (t *Transaction) Verify(name string, expect Expect) {
	t.ops = append(t.ops, txOp{kind: opVerify, name: name, expect: expect})
}

// Commit applies the transaction. It fetches and type-checks every new
// target (an UpdateHeld target is checked in memory), takes every guard in
// name order, checks every expectation, and only then changes anything; any failure before that point leaves all refs
// and reflogs as they were. Errors: *StaleError (first failed expectation
// in name order), *LockedError (a live writer holds a guard; dead writers'
// guards are recovered), ErrDuplicateRef, ErrNameClash, ErrBadExpect,
// format errors for names and targets, and after the commit point
// *fsutil.UnknownStateError.
func (t *Transaction) Commit(ctx context.Context) error {
	if t.done {
		return errors.New("refs: transaction committed twice")
	}
	t.done = true
	s := t.s
	if s.beforeUpdate != nil && slices.ContainsFunc(t.ops, func(op txOp) bool { return op.kind == opUpdate }) {
		if err := s.beforeUpdate(ctx); err != nil {
			return err
		}
	}
	for i := range t.ops {
		op := &t.ops[i]
		norm, err := NormalizeName(op.name)
		if err != nil {
			return err
		}
		op.norm = norm
		switch {
		case op.kind == opUpdate && op.held != nil:
			if err := s.checkHeldTarget(norm, op.held); err != nil {
				return err
			}
		case op.kind == opUpdate:
			if _, err := s.fetch(ctx, norm, op.newID, false); err != nil {
				return err
			}
		case op.kind == opDelete && op.expect.kind == expectAbsent:
			return fmt.Errorf("delete ref %s: %w: a deleted ref must exist", norm, ErrBadExpect)
		}
	}
	slices.SortStableFunc(t.ops, func(a, b txOp) int { return cmp.Compare(a.norm, b.norm) })
	for i := 1; i < len(t.ops); i++ {
		if t.ops[i].norm == t.ops[i-1].norm {
			return fmt.Errorf("ref %s: %w", t.ops[i].norm, ErrDuplicateRef)
		}
	}
	if err := checkTxnClash(t.ops); err != nil {
		return err
	}
	if err := s.Recover(ctx); err != nil {
		return err
	}
	owner, err := s.newTxnID()
	if err != nil {
		return err
	}
	// SPEC §2.5 step 1, in sorted order so two transactions cannot each
	// hold a guard the other needs. Each guard stays flocked until it is
	// released, which marks this writer alive to StaleGuards.
	var (
		held []*heldGuard
		j    *journalHandle
		// decided is set once a failure may leave the transaction
		// committed: the guards then stay on disk for Recover.
		decided bool
		// applied is set once the transaction committed and applied
		// every op: each update's ref file is in place.
		applied bool
	)
	defer func() {
		// Drop the guards' flocks before the journal's, so that a
		// recoverer that finds the journal free finds the guards free too.
		if decided {
			for _, g := range held {
				g.abandon()
			}
		} else {
			// held[i] guards t.ops[i] (locked in that order).
			s.releaseGuards(held, func(i int) (bool, bool) {
				update := t.ops[i].kind == opUpdate
				return update, update && applied
			})
		}
		if j != nil {
			j.unlock()
		}
	}()
	for i := range t.ops {
		g, err := s.lockRef(ctx, t.ops[i].norm, owner)
		if err != nil {
			return err
		}
		held = append(held, g)
	}
	commitHook("guarded")
	if err := ctx.Err(); err != nil {
		return err
	}
	// Step 2: every expectation before any change.
	now := s.now().UnixNano()
	for i := range t.ops {
		op := &t.ops[i]
		cur, err := s.readRef(op.norm)
		var damaged *damagedRef
		if op.kind == opDelete && (op.expect.kind == expectExists || op.expect.kind == expectAny) && errors.As(err, &damaged) {
			// A ref file holding no value can be neither compared nor
			// moved, only deleted: it exists, whatever it holds.
			continue
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := op.expect.check(op.norm, cur); err != nil {
			return err
		}
		if op.kind == opDelete && cur.IsZero() {
			return fmt.Errorf("delete ref %s: %w", op.norm, ErrNotFound)
		}
		op.cur = cur
		if op.kind == opUpdate {
			if err := s.checkNotDir(op.norm); err != nil {
				return err
			}
			// Encode the row before the ref moves, so a bad actor fails
			// the update instead of leaving it unlogged.
			op.row, err = EncodeReflogRow(ReflogEntry{Actor: t.actor, New: op.newID, Old: cur, Ref: op.norm, TimeNS: now})
			if err != nil {
				return err
			}
		}
	}
	var mut []*txOp
	for i := range t.ops {
		if t.ops[i].kind != opVerify {
			mut = append(mut, &t.ops[i])
		}
	}
	if len(mut) == 0 {
		return nil
	}
	// Step 3: staging files, all written and then made durable together
	// (stage). A journal will name them, so their directory entries must
	// be durable first too.
	if err := s.stage(mut, len(mut) > 1); err != nil {
		return err
	}
	commitHook("staged")
	if len(mut) > 1 {
		// The commit point of a multi-ref transaction. A journal whose
		// rename happened but could not be made durable may still apply:
		// keep its guards and staging files for Recover.
		if j, err = s.writeJournal(ctx, owner, mut); err != nil {
			decided = j != nil
			return err
		}
		commitHook("committed")
	}
	// Steps 4 and 5: apply, then log. From here on the transaction is
	// decided; on failure the journal (if any) and guards stay for Recover.
	if err := s.apply(mut, true); err != nil {
		decided = j != nil
		return &fsutil.UnknownStateError{Path: s.describeRefs(mut), Err: err}
	}
	if j != nil {
		if err := j.remove(); err != nil {
			decided = true
			return &fsutil.UnknownStateError{Path: s.relPath(j.path), Err: err}
		}
	}
	// Step 6 happens in the deferred release.
	commitHook("applied")
	applied = true
	return nil
}

// commitStageHook, when set by a test, is called as Commit reaches each
// stage ("guarded", "staged", "committed", "applied": every ref moved and
// logged, the guards not yet released); the crash tests kill a child
// process there.
var commitStageHook func(stage string)

// commitHook calls commitStageHook if a test set it.
func commitHook(stage string) {
	if commitStageHook != nil {
		commitStageHook(stage)
	}
}

// apply renames staging files over refs and removes deleted refs, fsyncs
// the directories and appends reflog rows: after the directory fsyncs, or,
// where the file system keeps metadata changes in order (overlapSyncs),
// right after the renames, fsyncing directories and logs together. With all set it applies every
// op; otherwise only updates whose staging file still exists (recovery).
func (s *Store) apply(ops []*txOp, all bool) error {
	var dirs []string
	var logged []*txOp
	for _, op := range ops {
		path := s.refPath(op.norm)
		switch op.kind {
		case opUpdate:
			if !all {
				if _, err := os.Lstat(path + stagingSuffix); errors.Is(err, fs.ErrNotExist) {
					continue
				}
			}
			if err := s.fs.rename(path+stagingSuffix, path); err != nil {
				return fmt.Errorf("ref %s: move the staging file over the ref: %w", op.norm, err)
			}
			logged = append(logged, op)
		case opDelete:
			if err := s.fs.remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("delete ref %s: %w", op.norm, err)
			}
		}
		dirs = append(dirs, filepath.Dir(path))
	}
	dirs = sortedUnique(dirs)
	if len(logged) > 0 && s.overlapSyncs() {
		// The rows are written after the renames and made durable
		// together with them (orderOverlapped).
		return s.appendReflogs(logged, dirs)
	}
	for _, d := range dirs {
		if err := s.fs.syncDir(d); err != nil {
			return fmt.Errorf("refs: make the moved refs durable: %w", err)
		}
	}
	if len(logged) == 0 {
		return nil
	}
	return s.appendReflogs(logged, nil)
}

// newTxnID returns 16 random bytes in hex: the owner written into guards
// and the journal's name.
func (s *Store) newTxnID() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(s.rand, b[:]); err != nil {
		return "", fmt.Errorf("refs: transaction id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// sortedUnique sorts dirs and drops repeats, so directories are synced in a
// fixed order.
func sortedUnique(dirs []string) []string {
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// describeRefs names the refs a failed transaction changes, for an
// unknown-state error: "refs/heads/a" or "refs/heads/a, refs/tags/c".
func (s *Store) describeRefs(ops []*txOp) string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = "refs/" + op.norm
	}
	return strings.Join(names, ", ")
}
