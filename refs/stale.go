package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// GuardKind says which kind of writer's file a Guard is.
type GuardKind string

// The kinds of file StaleGuards reports.
const (
	// GuardRef is a ref guard, refs/<name>.lock.
	GuardRef GuardKind = "guard"
	// GuardStaging is a staging file, refs/<name>..lock; it is alive while
	// its ref's guard is.
	GuardStaging GuardKind = "staging"
	// GuardShallow is shallow.lock, the shallow file's guard.
	GuardShallow GuardKind = "shallow"
	// GuardShallowTemp is a temporary file of a shallow rewrite,
	// .tmp-shallow-*; it is alive while shallow.lock is.
	GuardShallowTemp GuardKind = "shallow-temp"
	// GuardJournal is a transaction journal, refs-txn/<id>.tmp or
	// refs-txn/<id>.journal.
	GuardJournal GuardKind = "journal"
)

// Guard is one lock, staging, temporary or journal file of a ref writer,
// as StaleGuards found it.
type Guard struct {
	// Path is the file relative to the repository, in slash form.
	Path string
	// Kind says what the file is.
	Kind GuardKind
	// Ref is the ref a guard or staging file belongs to, else "".
	Ref string
	// ModTime is the file's modification time; Age is the store clock's
	// time since then.
	ModTime time.Time
	Age     time.Duration
	// Alive reports that the writer that created the file still runs
	// (it holds the flock). A dead writer's file is a crash leftover.
	Alive bool
	// Foreign reports a guard or shallow.lock that tine did not create
	// (OpenTine takes no flock), with a staging file under it: whether
	// its writer lives cannot be told, so Alive is false and only age
	// says how likely it is a leftover.
	Foreign bool
}

// StaleGuards lists every guard, staging file, shallow.lock, shallow
// temporary and journal on disk, each with whether its writer is alive
// (package documentation, "Guards and liveness"). It changes nothing. It
// takes the gate exclusive for the scan; where the gate cannot be created
// (a read-only repository, in which no writer can be at work) liveness is
// probed without it.
func (s *Store) StaleGuards(ctx context.Context) ([]Guard, error) {
	found, err := s.scanLeftovers()
	if err != nil || len(found) == 0 {
		return found, err
	}
	if g, err := s.lockGate(ctx, true); err == nil {
		defer g.unlock()
		// Rescan: files may have come and gone before the gate was held.
		if found, err = s.scanLeftovers(); err != nil {
			return nil, err
		}
	}
	now := s.now()
	alive := map[string]Guard{} // guard path -> its finding, for staging files
	for i := range found {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g := &found[i]
		g.Age = now.Sub(g.ModTime)
		abs := filepath.Join(s.root, filepath.FromSlash(g.Path))
		switch g.Kind {
		case GuardRef, GuardShallow, GuardJournal:
			fl, fi, live, err := probe(abs)
			if err != nil {
				return nil, err
			}
			if fl != nil {
				fl.Unlock()
				g.Foreign = g.Kind != GuardJournal && !ownGuard(fi)
			}
			g.Alive = live
			alive[abs] = *g
		}
	}
	for i := range found {
		g := &found[i]
		switch g.Kind {
		case GuardStaging:
			gd := alive[s.refPath(g.Ref)+guardSuffix]
			g.Alive, g.Foreign = gd.Alive, gd.Foreign
		case GuardShallowTemp:
			g.Alive = alive[filepath.Join(s.root, shallowLock)].Alive
		}
	}
	return found, nil
}

// scanLeftovers finds the files StaleGuards reports, guards before the
// files that depend on them.
func (s *Store) scanLeftovers() ([]Guard, error) {
	var out []Guard
	add := func(abs string, kind GuardKind, ref string) {
		fi, err := os.Lstat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			return // gone meanwhile, or not ours (fsck reports the unconfined)
		}
		out = append(out, Guard{Path: s.relPath(abs), Kind: kind, Ref: ref, ModTime: fi.ModTime()})
	}
	refsDir := filepath.Join(s.root, "refs")
	var staging []string
	err := filepath.WalkDir(refsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == refsDir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), guardSuffix) {
			return nil
		}
		rel, err := filepath.Rel(refsDir, p)
		if err != nil {
			return err
		}
		if ref, ok := strings.CutSuffix(filepath.ToSlash(rel), stagingSuffix); ok {
			staging = append(staging, ref)
			return nil
		}
		add(p, GuardRef, strings.TrimSuffix(filepath.ToSlash(rel), guardSuffix))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("refs: scan guards: %w", err)
	}
	for _, ref := range staging {
		add(s.refPath(ref)+stagingSuffix, GuardStaging, ref)
	}
	add(filepath.Join(s.root, shallowLock), GuardShallow, "")
	temps, err := filepath.Glob(filepath.Join(s.root, ".tmp-"+shallowName+"-*"))
	if err != nil {
		return nil, err
	}
	for _, t := range temps {
		add(t, GuardShallowTemp, "")
	}
	journals, err := s.journalNames()
	if err != nil {
		return nil, err
	}
	for _, name := range journals {
		add(filepath.Join(s.root, journalDirName, name), GuardJournal, "")
	}
	return out, nil
}

// RemoveOptions limits what RemoveStaleGuards removes.
type RemoveOptions struct {
	// OlderThan keeps foreign guards (Guard.Foreign, whose writer's
	// liveness cannot be probed) modified at or after it, with their
	// staging files; the zero time removes them whatever their age. It
	// does not apply to tine's own files, whose liveness is exact.
	OlderThan time.Time
}

// RemoveStaleGuards makes the refs of a repository whose writers crashed
// writable again. Every file tine writes here tells exactly whether its
// writer lives (an flock), so tine's leftovers go whatever their age.
// Under the exclusive gate it first runs recovery (rolling committed
// journals forward and uncommitted ones back), then removes the guards
// whose flock it can take, that is whose writer is dead, each with its
// staging file; staging files without a guard (written only under one); a
// dead shallow.lock and the shallow temporaries no live writer owns; and
// foreign guards older than opt.OlderThan. A live writer's files are never
// removed. Writers recover the guard they need the same way
// (recoverGuard), so this is housekeeping. It returns the removed paths,
// relative to the repository, in slash form and sorted.
func (s *Store) RemoveStaleGuards(ctx context.Context, opt RemoveOptions) ([]string, error) {
	g, err := s.lockGate(ctx, true)
	if err != nil {
		return nil, err
	}
	defer g.unlock()
	removed, err := s.recover(ctx, g)
	if err != nil {
		return removed, err
	}
	found, err := s.scanLeftovers()
	if err != nil {
		return removed, err
	}
	old := func(l Guard) bool { return opt.OlderThan.IsZero() || l.ModTime.Before(opt.OlderThan) }
	var errs []error
	shallowTemps := false
	for _, l := range found {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		abs := filepath.Join(s.root, filepath.FromSlash(l.Path))
		var rm []string
		switch l.Kind {
		case GuardRef:
			rm, err = s.removeDeadGuard(abs, old(l))
		case GuardStaging:
			// Its guard, if any, is still there because it is alive or
			// young and foreign.
			if _, lerr := os.Lstat(s.refPath(l.Ref) + guardSuffix); errors.Is(lerr, fs.ErrNotExist) {
				if err = s.fs.remove(abs); err == nil {
					rm = []string{l.Path}
				}
			}
		case GuardShallow:
			rm, err = s.removeDeadShallow(abs, old(l))
		case GuardShallowTemp:
			shallowTemps = true
		}
		removed = append(removed, rm...)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(s.root, shallowLock)); shallowTemps && errors.Is(err, fs.ErrNotExist) {
		rm, err := s.removeShallowTemps()
		removed = append(removed, rm...)
		errs = append(errs, err)
	}
	slices.Sort(removed)
	return removed, errors.Join(errs...)
}

// removeDeadShallow removes shallow.lock if its writer is dead; a foreign
// one (see removeDeadGuard) only with foreign set. The caller holds the
// gate exclusive. It returns the removed path, and an error when the guard
// is a dead writer's but could not be removed.
func (s *Store) removeDeadShallow(path string, foreign bool) ([]string, error) {
	fl, fi, alive, err := probe(path)
	if err != nil || alive {
		return nil, err
	}
	defer fl.Unlock()
	if !foreign && !ownGuard(fi) {
		return nil, nil
	}
	if err := s.fs.remove(path); err != nil {
		return nil, fmt.Errorf("refs: remove shallow.lock of a dead writer: %w", err)
	}
	return []string{s.relPath(path)}, nil
}
