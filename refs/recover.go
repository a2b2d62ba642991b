package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The next writer's recovery of a dead writer's guard: see the package
// documentation, "Guards and liveness".

// recoverGuard is the next writer's recovery of the guard of ref norm at
// path when it already exists. Under the exclusive gate (no writer is then
// between creating a guard and flocking it) it first finishes the
// transactions of dead writers (Recover: a committed journal is rolled
// forward, an uncommitted one discarded, their guards released), then
// removes the guard and its staging file if the guard's flock is free,
// that is if its writer is dead. It returns nil when the guard is gone, and
// a *LockedError when a live or a foreign writer holds it.
func (s *Store) recoverGuard(ctx context.Context, norm, path string) error {
	g, err := s.lockGate(ctx, true)
	if err != nil {
		return err
	}
	defer g.unlock()
	wrap := func(err error) error {
		return fmt.Errorf("ref %s: recover the guard of a dead writer: %w", norm, err)
	}
	if _, err := s.recover(ctx, g); err != nil {
		return wrap(err)
	}
	if _, err := s.removeDeadGuard(path, false); err != nil {
		return wrap(err)
	}
	// Exact: no guard can be created while the gate is held exclusive.
	return s.lockedIfPresent(norm, path)
}

// lockedIfPresent returns nil when the guard path is gone, else the
// *LockedError that describes it. The caller holds the gate exclusive and
// has removed the guard if its writer was a dead tine writer.
func (s *Store) lockedIfPresent(name, path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: guard %s: %w", name, path, err)
	}
	return &LockedError{Name: name, Path: path, Foreign: !ownGuard(fi)}
}

// removeDeadGuard removes a guard whose writer is dead, with its staging
// file first, and prunes emptied directories. The caller holds the gate
// exclusive. A live writer's guard is left alone, and so is the guard of a
// transaction whose journal is still on disk: only recovery, which runs
// first, may finish or discard that transaction. A foreign guard (not
// ownGuard: its liveness is unknown) is removed only with foreign set. It
// returns the removed paths, relative to the repository, and an error when
// the guard is a dead writer's but could not be removed.
func (s *Store) removeDeadGuard(guard string, foreign bool) ([]string, error) {
	fl, fi, alive, err := probe(guard)
	if err != nil || alive {
		return nil, err
	}
	defer fl.Unlock()
	if (!foreign && !ownGuard(fi)) || s.journalOf(guard) {
		return nil, nil
	}
	var removed []string
	staging := guard[:len(guard)-len(guardSuffix)] + stagingSuffix
	if err := s.fs.remove(staging); err == nil {
		removed = append(removed, s.relPath(staging))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return removed, fmt.Errorf("refs: remove staging file of a dead writer: %w", err)
	}
	// Removed while its flock is held: see heldGuard.release.
	if err := s.fs.remove(guard); err != nil {
		return removed, fmt.Errorf("refs: remove guard of a dead writer: %w", err)
	}
	removed = append(removed, s.relPath(guard))
	s.pruneDirs(filepath.Dir(guard))
	return removed, nil
}

// journalOf reports whether the transaction that wrote guard still has a
// journal in refs-txn/.
func (s *Store) journalOf(guard string) bool {
	b, err := s.readRegular(guard, 1, 64, func(int64) error { return errors.New("too big") })
	if err != nil || !isTxnID(string(b)) {
		return false
	}
	for _, ext := range []string{".journal", ".tmp"} {
		if _, err := os.Lstat(filepath.Join(s.root, journalDirName, string(b)+ext)); err == nil {
			return true
		}
	}
	return false
}

// isTxnID reports whether s is a transaction id as newTxnID makes them.
func isTxnID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
