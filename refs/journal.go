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
}

// writeJournal durably writes the journal of owner's ops under its final
// name. The rename is the commit point of the transaction.
func (s *Store) writeJournal(owner string, ops []*txOp) (*journalHandle, error) {
	dir := filepath.Join(s.root, journalDirName)
	if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
		return nil, err
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
	// The flock is taken as the file is created and held until the
	// transaction is done, so Recover never mistakes it for a dead writer's.
	fl := flock.New(tmp, flock.SetFlag(os.O_CREATE|os.O_EXCL|os.O_RDWR))
	if ok, err := fl.TryLock(); err != nil || !ok {
		return nil, fmt.Errorf("refs: lock journal %s: %v", tmp, err)
	}
	if err := writeExisting(tmp, data); err != nil {
		fl.Unlock()
		os.Remove(tmp)
		return nil, fmt.Errorf("refs: write journal: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		fl.Unlock()
		os.Remove(tmp)
		return nil, fmt.Errorf("refs: commit journal: %w", err)
	}
	if err := fsutil.SyncDir(dir); err != nil {
		// The journal is visible, so the transaction may apply later; say so.
		fl.Unlock()
		return nil, &fsutil.UnknownStateError{Path: final, Err: err}
	}
	return &journalHandle{path: final, lock: fl}, nil
}

// remove deletes a fully applied journal and makes the deletion durable.
func (j *journalHandle) remove() error {
	if err := os.Remove(j.path); err != nil {
		return err
	}
	return fsutil.SyncDir(filepath.Dir(j.path))
}

// unlock releases the journal's flock.
func (j *journalHandle) unlock() { j.lock.Unlock() }

// Recover finishes the transactions of writers that died: a committed
// journal is rolled forward (its remaining staging files renamed over their
// refs, its deletions done, the reflog rows of the refs it moved appended,
// its guards removed); an uncommitted one is rolled back (its staging files
// and guards removed). Journals of live writers are left alone. Write
// operations, List and Check call it; tools may call it at open.
func (s *Store) Recover(ctx context.Context) error {
	dir := filepath.Join(s.root, journalDirName)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("refs: recover: %w", err)
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		owner, kind, ok := strings.Cut(name, ".")
		if !ok || (kind != "journal" && kind != "tmp") {
			continue
		}
		if err := s.recoverOne(filepath.Join(dir, name), owner, kind == "journal"); err != nil {
			return err
		}
	}
	return nil
}

// recoverOne handles one journal file if its writer is gone.
func (s *Store) recoverOne(path, owner string, committed bool) error {
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // finished meanwhile
		}
		return fmt.Errorf("refs: recover %s: %w", path, err)
	}
	if !ok {
		return nil // its writer is alive
	}
	defer fl.Unlock()
	// Another recoverer may have finished and removed it before we locked.
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	b, err := readRegular(path, 1, maxJournalBytes, func(n int64) error {
		return fmt.Errorf("refs: journal %s is %d bytes", path, n)
	})
	if err != nil {
		return err
	}
	jf, ops, perr := s.parseJournal(b, owner)
	if perr != nil {
		if committed {
			return fmt.Errorf("refs: journal %s is unreadable, refusing to guess: %w", path, perr)
		}
		// A torn uncommitted journal: nothing was applied.
		return removeSync(path)
	}
	if committed {
		if err := s.apply(ops, false); err != nil {
			return fmt.Errorf("refs: roll forward %s: %w", path, err)
		}
	}
	if err := removeSync(path); err != nil {
		return err
	}
	for _, e := range jf.Ops {
		s.releaseOwned(e.Ref, owner)
	}
	return nil
}

// releaseOwned removes the staging file and the guard of ref when the guard
// names owner; a guard of another writer is never touched.
func (s *Store) releaseOwned(ref, owner string) {
	g := s.refPath(ref) + guardSuffix
	b, err := os.ReadFile(g)
	if err != nil || string(b) != owner {
		return
	}
	s.releaseGuards([]string{g})
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

// writeExisting writes data into the existing empty file path and fsyncs it.
func writeExisting(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeSync removes a file and fsyncs its directory.
func removeSync(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fsutil.SyncDir(filepath.Dir(path))
}
