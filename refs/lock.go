package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// lockRef creates and flocks the guard <ref>.lock holding the owner's
// transaction id (SPEC §2.5 step 1; createGuard). An existing guard whose
// writer died is recovered first, the way SQLite recovers a hot journal
// (recoverGuard); a guard whose writer is alive is a *LockedError at once:
// writers never wait for one another.
func (s *Store) lockRef(ctx context.Context, norm, owner string) (*heldGuard, error) {
	path := s.refPath(norm) + guardSuffix
	dir := filepath.Dir(path)
	recovered := false
	for attempt := 0; ; attempt++ {
		if err := s.fs.mkdirAll(dir, 0o755); err != nil {
			return nil, s.clashError(norm, err)
		}
		g, err := s.createGuard(ctx, path, owner)
		if err == nil {
			return g, nil
		}
		if errors.Is(err, fs.ErrExist) {
			if recovered {
				return nil, &LockedError{Name: norm, Path: path}
			}
			recovered = true
			if err := s.recoverGuard(ctx, norm, path); err != nil {
				return nil, err
			}
			continue
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, s.clashError(norm, err)
		}
		// A concurrent deletion may have pruned the directory between
		// MkdirAllSync and the create; make it again.
		if errors.Is(err, fs.ErrNotExist) && attempt < 8 {
			continue
		}
		return nil, fmt.Errorf("ref %s: create guard: %w", norm, err)
	}
}

// releaseGuards removes each guard's staging leftover and then the guard
// (while its flock is held), and prunes the directories emptied by
// deletions or by a failure. state(i) says whether guards[i]'s ref is
// an update, which may have left a staging file, and whether it was
// written by a committed transaction: then its staging file was renamed
// over it and its directory holds it, so neither needs removing. Removing
// what is not there was a failing system call or two per ref (a loop of
// 1,000 iterations made over 6,000); an update that did not commit, a
// failed transaction's above all, still gets the full cleanup.
func (s *Store) releaseGuards(guards []*heldGuard, state func(i int) (update, written bool)) {
	for i, g := range guards {
		update, written := state(i)
		if update && !written {
			base := g.path[:len(g.path)-len(guardSuffix)]
			s.fs.remove(base + stagingSuffix)
		}
		g.release()
		if !written {
			s.pruneDirs(filepath.Dir(g.path))
		}
	}
}

// pruneDirs removes dir and its parents while they are empty, stopping at
// the namespace directory (refs/<ns>), which init creates and keeps.
// Failures are expected (a directory still holds refs) and ignored.
func (s *Store) pruneDirs(dir string) {
	refsDir := filepath.Join(s.root, "refs")
	for {
		parent := filepath.Dir(dir)
		if parent == refsDir || parent == dir || !within(refsDir, parent) {
			return
		}
		if s.fs.removeDir(dir) != nil {
			return
		}
		dir = parent
	}
}

// within reports whether path lies strictly inside dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator))
}

// createStaging writes the staging file <ref>..lock (SPEC §2.5 step 3)
// and returns it open, not yet fsynced: stage fsyncs a transaction's
// staging files together. A leftover from a crashed writer is replaced:
// the caller holds the guard, so no live writer owns it. It is removed
// only when the exclusive create finds it, not before every create (a
// failing unlink per update otherwise). On failure the caller's release
// of the guard removes what was written.
func (s *Store) createStaging(path string, data []byte) (file, error) {
	create := func() (file, error) {
		return s.fs.openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollowFlag, 0o644)
	}
	f, err := create()
	if errors.Is(err, fs.ErrExist) {
		if rerr := s.fs.remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove a dead writer's staging file: %w", rerr)
		}
		f, err = create()
	}
	if err != nil {
		return nil, fmt.Errorf("create staging file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("write staging file: %w", err)
	}
	return f, nil
}

// stage writes the staging file of every update in ops and makes them all
// durable before it returns (SPEC §2.5 step 3): files are written in
// chunks of syncChunk, each chunk then fsynced concurrently (syncFiles)
// and closed, which bounds the open descriptors. With dirsToo the staging
// files' directory entries are made durable as well (a journal is about to
// name them), each directory fsynced once.
func (s *Store) stage(ops []*txOp, dirsToo bool) error {
	var updates []*txOp
	var dirs []string
	for _, op := range ops {
		dirs = append(dirs, filepath.Dir(s.refPath(op.norm)))
		if op.kind == opUpdate {
			updates = append(updates, op)
		}
	}
	dirs = sortedUnique(dirs)
	for chunk := range slices.Chunk(updates, syncChunk) {
		if err := s.stageChunk(chunk); err != nil {
			return err
		}
	}
	if dirsToo {
		for _, d := range dirs {
			if err := s.fs.syncDir(d); err != nil {
				return fmt.Errorf("refs: make the staging files durable: %w", err)
			}
		}
	}
	return nil
}

// stageChunk writes the staging files of updates and fsyncs them
// together; it closes every file it opened.
func (s *Store) stageChunk(updates []*txOp) (err error) {
	files := make([]file, 0, len(updates))
	defer func() {
		if i, cerr := closeFiles(files); cerr != nil && err == nil {
			err = fmt.Errorf("ref %s: close staging file: %w", updates[i].norm, cerr)
		}
	}()
	for _, op := range updates {
		f, err := s.createStaging(s.refPath(op.norm)+stagingSuffix, EncodeRefFile(op.newID))
		if err != nil {
			return fmt.Errorf("ref %s: %w", op.norm, err)
		}
		files = append(files, f)
	}
	if i, err := s.syncFiles(files); err != nil {
		return fmt.Errorf("ref %s: fsync staging file: %w", updates[i].norm, err)
	}
	return nil
}
