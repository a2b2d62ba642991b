package refs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// journalDirName is the directory, beside refs/ and logs/, that holds the
// journals of multi-ref transactions.
const journalDirName = "refs-txn"

// maxJournalBytes bounds a journal on read.
const maxJournalBytes = 64 << 20

// journalFile is the on-disk journal: the transaction's owner id and every
// change it commits to, with the reflog row each update appends.
type journalFile struct {
	Version int            `json:"version"`
	Owner   string         `json:"owner"`
	Ops     []journalEntry `json:"ops"`
}

type journalEntry struct {
	Op  string `json:"op"` // "update" or "delete"
	Ref string `json:"ref"`
	New string `json:"new,omitempty"`
	Row string `json:"row,omitempty"` // the reflog row with its LF
}

// journalHandle is a committed journal whose writer is alive: it holds an
// flock on the file, which is how Recover tells a live transaction from
// one whose process died.
type journalHandle struct {
	path string
	lock *flock.Flock
	fs   fileSystem
}

// writeJournal durably writes the journal of owner's ops under its final
// name. The rename is the commit point of the transaction. The journal is
// created and flocked under the shared gate (see createGuard), so Recover
// never mistakes it for a dead writer's. A non-nil handle with an error
// means the journal is visible but not known to be durable: the
// transaction may still apply.
func (s *Store) writeJournal(ctx context.Context, owner string, ops []*txOp) (*journalHandle, error) {
	dir := filepath.Join(s.root, journalDirName)
	if err := s.fs.mkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("refs: journal directory: %w", err)
	}
	jf := journalFile{Version: 1, Owner: owner}
	for _, op := range ops {
		e := journalEntry{Op: "delete", Ref: op.norm}
		if op.kind == opUpdate {
			e = journalEntry{Op: "update", Ref: op.norm, New: op.newID.String(), Row: string(op.row)}
		}
		jf.Ops = append(jf.Ops, e)
	}
	data, err := json.Marshal(jf)
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, owner+".tmp")
	final := filepath.Join(dir, owner+".journal")
	f, fl, err := s.createJournal(ctx, tmp)
	if err != nil {
		return nil, err
	}
	// Before the rename nothing is committed: a failure removes the
	// temporary journal (under its flock) and the transaction is rolled
	// back by the caller.
	abort := func(step string, err error) (*journalHandle, error) {
		s.fs.remove(tmp)
		fl.Unlock()
		return nil, fmt.Errorf("refs: %s journal: %w", step, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return abort("write", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return abort("fsync", err)
	}
	if err := f.Close(); err != nil {
		return abort("close", err)
	}
	if err := s.fs.rename(tmp, final); err != nil {
		return abort("commit (rename)", err)
	}
	j := &journalHandle{path: final, lock: fl, fs: s.fs}
	if err := s.fs.syncDir(dir); err != nil {
		return j, &fsutil.UnknownStateError{Path: s.relPath(final), Err: fmt.Errorf("journal committed but not made durable: %w", err)}
	}
	return j, nil
}

// createJournal creates the empty temporary journal tmp and flocks it,
// both under the shared gate (see createGuard), so Recover never mistakes
// it for a dead writer's. It returns the file open for writing and the
// held flock.
func (s *Store) createJournal(ctx context.Context, tmp string) (file, *flock.Flock, error) {
	g, err := s.lockGate(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	defer g.unlock()
	f, err := s.fs.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollowFlag, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("refs: create journal: %w", err)
	}
	fl := flock.New(tmp, flock.SetFlag(os.O_RDONLY|noFollowFlag))
	ok, err := fl.TryLock()
	if err == nil && !ok {
		err = errors.New("its flock is held by someone else")
	}
	if err != nil {
		f.Close()
		s.fs.remove(tmp)
		return nil, nil, fmt.Errorf("refs: lock journal %s: %w", s.relPath(tmp), err)
	}
	return f, fl, nil
}

// remove deletes a fully applied journal and makes the deletion durable.
func (j *journalHandle) remove() error {
	if err := j.fs.remove(j.path); err != nil {
		return fmt.Errorf("remove applied journal: %w", err)
	}
	if err := j.fs.syncDir(filepath.Dir(j.path)); err != nil {
		return fmt.Errorf("make the removal of the applied journal durable: %w", err)
	}
	return nil
}

// unlock releases the journal's flock.
func (j *journalHandle) unlock() { j.lock.Unlock() }

// Recover finishes the transactions of writers that died: a committed
// journal is rolled forward (its remaining staging files renamed over their
// refs, its deletions done, the reflog rows of the refs it moved appended,
// its guards removed); an uncommitted one is rolled back (its staging files
// and guards removed). Journals of live writers are left alone. Write
// operations and List call it; tools may call it at open. It costs
// one directory read when no journal exists.
func (s *Store) Recover(ctx context.Context) error {
	_, err := s.recover(ctx, nil)
	return err
}

// journalNames lists the journal files (<id>.journal, <id>.tmp) in
// refs-txn/, sorted.
func (s *Store) journalNames() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.root, journalDirName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refs: recover: %w", err)
	}
	var out []string
	for _, e := range ents {
		if _, kind, ok := strings.Cut(e.Name(), "."); ok && (kind == "journal" || kind == "tmp") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// recover is Recover. It takes the gate exclusive, unless the caller holds
// it (g), because it concludes from a free flock that a writer died. It
// returns the paths, relative to the repository, of the journals, staging
// files and guards it removed.
func (s *Store) recover(ctx context.Context, g *gate) ([]string, error) {
	names, err := s.journalNames()
	if err != nil || len(names) == 0 {
		return nil, err
	}
	if g == nil {
		if g, err = s.lockGate(ctx, true); err != nil {
			return nil, err
		}
		defer g.unlock()
	}
	var removed []string
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		owner, kind, _ := strings.Cut(name, ".")
		rm, err := s.recoverOne(filepath.Join(s.root, journalDirName, name), owner, kind == "journal")
		removed = append(removed, rm...)
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// recoverOne handles one journal file if its writer is gone. The caller
// holds the gate exclusive.
func (s *Store) recoverOne(path, owner string, committed bool) ([]string, error) {
	fl, _, alive, err := probe(path)
	if err != nil {
		return nil, fmt.Errorf("refs: recover %s: %w", path, err)
	}
	if alive {
		return nil, nil // its writer is alive, or it finished meanwhile
	}
	defer fl.Unlock()
	b, err := s.readRegular(path, 1, maxJournalBytes, func(n int64) error {
		return fmt.Errorf("refs: journal %s is %d bytes", path, n)
	})
	if err != nil {
		return nil, err
	}
	rel := filepath.ToSlash(filepath.Join(journalDirName, filepath.Base(path)))
	jf, ops, perr := s.parseJournal(b, owner)
	if perr != nil {
		if committed {
			return nil, fmt.Errorf("refs: journal %s is unreadable, refusing to guess: %w", path, perr)
		}
		// A torn uncommitted journal: nothing was applied. Its guards
		// are those of a dead writer; RemoveStaleGuards removes them.
		return []string{rel}, s.removeSync(path)
	}
	if committed {
		if err := s.apply(ops, false); err != nil {
			return nil, fmt.Errorf("refs: roll forward %s: %w", path, err)
		}
	}
	if err := s.removeSync(path); err != nil {
		return nil, fmt.Errorf("refs: remove recovered journal: %w", err)
	}
	removed := []string{rel}
	for _, e := range jf.Ops {
		rm, err := s.releaseOwned(e.Ref, owner)
		removed = append(removed, rm...)
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// releaseOwned removes the staging file and the guard of ref when the guard
// names owner and its writer is dead; a guard of another writer is never
// touched. The caller holds the gate exclusive. It returns the removed
// paths, relative to the repository.
func (s *Store) releaseOwned(ref, owner string) ([]string, error) {
	g := s.refPath(ref) + guardSuffix
	b, err := s.readRegular(g, 1, 64, func(int64) error { return errors.New("too big") })
	if err != nil || string(b) != owner {
		return nil, nil
	}
	return s.removeDeadGuard(g, false)
}

// relPath returns path relative to the repository, in slash form.
func (s *Store) relPath(path string) string {
	if rel, err := filepath.Rel(s.root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// parseJournal decodes a journal and checks every name and oid in it.
func (s *Store) parseJournal(b []byte, owner string) (*journalFile, []*txOp, error) {
	var jf journalFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jf); err != nil {
		return nil, nil, err
	}
	if jf.Version != 1 || jf.Owner != owner {
		return nil, nil, fmt.Errorf("journal version %d owner %q", jf.Version, jf.Owner)
	}
	var ops []*txOp
	for _, e := range jf.Ops {
		norm, err := NormalizeName(e.Ref)
		if err != nil || norm != e.Ref {
			return nil, nil, fmt.Errorf("journal names ref %q", e.Ref)
		}
		op := &txOp{norm: norm, name: norm}
		switch e.Op {
		case "delete":
			op.kind = opDelete
		case "update":
			op.kind = opUpdate
			if op.newID, err = objects.ParseOIDFor(s.algo, e.New); err != nil {
				return nil, nil, err
			}
			entry, err := ParseReflogRow([]byte(e.Row))
			if err != nil || entry.Ref != norm || entry.New != op.newID {
				return nil, nil, fmt.Errorf("journal row for %s is invalid: %v", norm, err)
			}
			op.row = []byte(e.Row)
		default:
			return nil, nil, fmt.Errorf("journal op %q", e.Op)
		}
		ops = append(ops, op)
	}
	return &jf, ops, nil
}

// removeSync removes a file and fsyncs its directory.
func (s *Store) removeSync(path string) error {
	if err := s.fs.remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return s.fs.syncDir(filepath.Dir(path))
}
