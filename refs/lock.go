package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tinehq/tine/internal/fsutil"
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
		if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
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

// releaseGuards removes each guard's staging leftover and then the guard
// (while its flock is held), and prunes the directories emptied by
// deletions.
func (s *Store) releaseGuards(guards []*heldGuard) {
	for _, g := range guards {
		base := g.path[:len(g.path)-len(guardSuffix)]
		os.Remove(base + stagingSuffix)
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
		if os.Remove(dir) != nil {
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
// holds the guard, so no live writer owns it.
func writeStaging(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
