package plumbing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/internal/fsutil"
)

// Repository locks: why gc --prune cannot delete what a writer is about to
// reference.
//
// A writer makes an object reachable in two steps: it writes the object
// (or finds it already stored), then moves a ref to it or to something that
// links to it. Between the two the object is unreachable, and a gc that
// computes reachability in that window would delete it, leaving the ref
// naming a missing object. Grace periods (git's prune age) only make the
// window unlikely; --prune=now makes it certain under load. So writers and
// pruning exclude each other with flocks on files in objects/locks/ (a
// directory OpenTine's reader and fsck skip: SPEC §2.1 skips non-type
// directories under objects/):
//
//   - objects/locks/writers: every process that writes objects or moves a
//     ref holds it SHARED from its first write (Repo's object store, bulk
//     writes, blob streams, ref updates) until Repo.Close or process exit;
//     gc's prune phase holds it EXCLUSIVE from before it lists the objects
//     until its last deletion, so reachability is computed while no writer
//     is between "object stored" and "ref moved". After taking it a writer
//     re-scans the storage packs, so it never trusts a copy a prune deleted
//     while it was not yet writing.
//   - objects/locks/turnstile: flock does not queue an exclusive request
//     ahead of new shared ones, so a steady stream of writers could starve
//     gc. gc takes the turnstile exclusive before waiting for the writers'
//     lock; a writer passes through it (shared, for an instant) before
//     taking the writers' lock, so new writers queue behind a waiting gc.
//   - objects/locks/gc: held exclusive by gc (and repack) for its whole
//     run, so two gcs never interleave; a second gc waits for the first.
//
// Readers take no lock. The kernel drops a dead process's flocks, so a
// killed writer or gc never blocks anyone. Whoever waits says so once
// through the repository's notice callback (the CLI prints it on stderr)
// and can be cancelled through its context.
const (
	locksRel      = "objects/locks"
	writersLock   = "writers"
	turnstileLock = "turnstile"
	gcLock        = "gc"
	// lockPoll is how often a blocked lock acquisition tries again.
	lockPoll = 5 * time.Millisecond
)

// procWriters is this process's hold on one repository's writers' lock,
// shared by every Repo handle of that repository in the process: two
// handles of one process must not queue behind each other through gc.
type procWriters struct {
	// mu is held while the flock changes hands, and by an in-process gc's
	// prune for its whole run (in-process writers then wait for it).
	mu     sync.Mutex
	fl     *flock.Flock
	shared int // handles holding the shared lock
}

// writerLocks maps a repository root to this process's hold on it.
var writerLocks = struct {
	sync.Mutex
	m map[string]*procWriters
}{m: map[string]*procWriters{}}

// procWritersOf returns the process-wide hold of the repository at root.
func procWritersOf(root string) *procWriters {
	writerLocks.Lock()
	defer writerLocks.Unlock()
	p := writerLocks.m[root]
	if p == nil {
		p = &procWriters{}
		writerLocks.m[root] = p
	}
	return p
}

// lockFile returns an flock on objects/locks/name, creating the directory.
func (r *Repo) lockFile(name string) (*flock.Flock, error) {
	dir := filepath.Join(r.root, filepath.FromSlash(locksRel))
	if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
		return nil, fmt.Errorf("repository lock: %w", err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("repository lock: %s is not a directory (symlinks are refused): %w", dir, ErrNotConfined)
	}
	return flock.New(filepath.Join(dir, name), flock.SetFlag(os.O_CREATE|os.O_RDONLY|noFollowFlag), flock.SetPermissions(0o644)), nil
}

// acquire takes fl (exclusive or shared), trying at once and then every
// lockPoll until ctx ends; notice is called once, with waiting, when the
// first try fails.
func (r *Repo) acquire(ctx context.Context, fl *flock.Flock, exclusive bool, waiting string) error {
	try := fl.TryRLock
	tryCtx := fl.TryRLockContext
	if exclusive {
		try, tryCtx = fl.TryLock, fl.TryLockContext
	}
	ok, err := try()
	if err == nil && !ok {
		if r.notice != nil {
			r.notice(waiting)
		}
		ok, err = tryCtx(ctx, lockPoll)
	}
	if err == nil && !ok {
		err = errors.New("not acquired")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", fl.Path(), err)
	}
	return nil
}

// LockWriters takes the repository's writers' lock shared for this handle,
// once; it is released by Close. Every write path of Repo calls it before
// its first object write or ref update, so callers need not; a caller that
// validates links against stored objects before writing may call it first
// so the objects it checked cannot be pruned before it writes. It waits
// (saying so through the notice callback) while a gc prunes.
func (r *Repo) LockWriters(ctx context.Context) error {
	r.lockMu.Lock()
	defer r.lockMu.Unlock()
	if r.writing {
		return nil
	}
	p := procWritersOf(r.root)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shared == 0 {
		if err := r.takeShared(ctx, p); err != nil {
			return fmt.Errorf("writers' lock: %w", err)
		}
	}
	p.shared++
	r.writing = true
	// A prune that ran before this handle held the lock may have deleted
	// packs this handle still has open: forget them, so no write is
	// skipped because of a copy that is gone.
	if r.packs != nil {
		if err := r.packs.Reload(); err != nil {
			return err
		}
	}
	return nil
}

// takeShared takes the writers' lock shared for the process, through the
// turnstile so a waiting gc is not starved.
func (r *Repo) takeShared(ctx context.Context, p *procWriters) error {
	ts, err := r.lockFile(turnstileLock)
	if err != nil {
		return err
	}
	const waiting = "waiting for tine gc --prune to finish before writing"
	if err := r.acquire(ctx, ts, false, waiting); err != nil {
		return err
	}
	defer ts.Unlock()
	fl, err := r.lockFile(writersLock)
	if err != nil {
		return err
	}
	if err := r.acquire(ctx, fl, false, waiting); err != nil {
		return err
	}
	p.fl = fl
	return nil
}

// unlockWriters releases this handle's share of the writers' lock.
func (r *Repo) unlockWriters() error {
	r.lockMu.Lock()
	defer r.lockMu.Unlock()
	if !r.writing {
		return nil
	}
	r.writing = false
	p := procWritersOf(r.root)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shared--
	if p.shared > 0 || p.fl == nil {
		return nil
	}
	err := p.fl.Unlock()
	p.fl = nil
	return err
}

// lockGC takes objects/locks/gc exclusive, waiting for another gc to end.
func (r *Repo) lockGC(ctx context.Context) (release func(), err error) {
	fl, err := r.lockFile(gcLock)
	if err != nil {
		return nil, err
	}
	if err := r.acquire(ctx, fl, true, "waiting for another tine gc to finish"); err != nil {
		return nil, fmt.Errorf("gc lock: %w", err)
	}
	return func() { fl.Unlock() }, nil
}

// lockPrune takes the writers' lock exclusive for gc's prune phase (or
// fsck's removal of leftovers of any age; what names the activity in the
// waiting notices) and returns its release. In-process writers wait for the release; this
// process's own shared hold (a handle that wrote and is not closed) is
// dropped for the duration and retaken after, so whatever such a handle
// wrote and has not yet referenced is unreachable to this gc like any
// other unreferenced object. The caller must not write through the
// repository's store until it releases (gc writes packs directly).
func (r *Repo) lockPrune(ctx context.Context, what string) (release func(), err error) {
	p := procWritersOf(r.root)
	p.mu.Lock()
	defer func() {
		if err != nil {
			if p.shared > 0 && p.fl == nil {
				_ = r.takeShared(context.Background(), p)
			}
			p.mu.Unlock()
		}
	}()
	if p.fl != nil {
		p.fl.Unlock()
		p.fl = nil
	}
	ts, err := r.lockFile(turnstileLock)
	if err != nil {
		return nil, err
	}
	if err := r.acquire(ctx, ts, true, "waiting for the writers' turnstile before "+what); err != nil {
		return nil, fmt.Errorf("writers' lock: %w", err)
	}
	defer ts.Unlock()
	fl, err := r.lockFile(writersLock)
	if err != nil {
		return nil, err
	}
	if err := r.acquire(ctx, fl, true, "waiting for running writers (record, import, ...) to finish before "+what); err != nil {
		return nil, fmt.Errorf("writers' lock: %w", err)
	}
	return func() {
		fl.Unlock()
		if p.shared > 0 {
			// Retake this process's shared hold; only another gc's
			// prune can delay it. On failure the handles write
			// unprotected, as a process without the lock would.
			_ = r.takeShared(context.Background(), p)
		}
		p.mu.Unlock()
	}, nil
}
