package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// deletions.
func (s *Store) releaseGuards(guards []*heldGuard) {
	for _, g := range guards {
		base := g.path[:len(g.path)-len(guardSuffix)]
		s.fs.remove(base + stagingSuffix)
		g.release()
		s.pruneDirs(filepath.Dir(g.path))
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
		if s.fs.remove(dir) != nil {
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

// writeStaging writes the staging file <ref>..lock and fsyncs it (SPEC
// §2.5 step 3). A leftover from a crashed writer is replaced: the caller
// holds the guard, so no live writer owns it. On failure the caller's
// release of the guard removes what was written.
func (s *Store) writeStaging(path string, data []byte) error {
	if err := s.fs.remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove a dead writer's staging file: %w", err)
	}
	f, err := s.fs.openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollowFlag, 0o644)
	if err != nil {
		return fmt.Errorf("create staging file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write staging file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync staging file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close staging file: %w", err)
	}
	return nil
}
