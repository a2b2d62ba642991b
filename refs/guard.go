package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// gateName is the file in refs-txn/ whose flock orders the creation of
// guards and journals against liveness probes (package documentation,
// "Guards and liveness"). Its name has no dot, so Recover never takes it
// for a journal.
const gateName = "gate"

// gateRetry is how often a blocked gate acquisition tries again. Writers
// hold the gate for one create and flock, probers for one scan, so a wait
// is short; polling keeps it cancellable through the context.
const gateRetry = time.Millisecond

// guardWindowHook, when set by a test, runs after a guard is created and
// before its flock is taken: the window a remover must never act in.
var guardWindowHook func(path string)

// gate is a held flock on refs-txn/gate.
type gate struct{ fl *flock.Flock }

// lockGate takes the gate: shared by a writer creating a guard or journal,
// exclusive by anything that concludes from a free flock that a writer is
// dead. It waits (cancellably) rather than failing: holders are brief.
func (s *Store) lockGate(ctx context.Context, exclusive bool) (*gate, error) {
	dir := filepath.Join(s.root, journalDirName)
	if err := s.fs.mkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("refs: guard gate: %w", err)
	}
	fl := flock.New(filepath.Join(dir, gateName), flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollowFlag), flock.SetPermissions(0o644))
	try := fl.TryRLockContext
	if exclusive {
		try = fl.TryLockContext
	}
	ok, err := try(ctx, gateRetry)
	if err == nil && !ok {
		err = errors.New("not acquired")
	}
	if err != nil {
		return nil, fmt.Errorf("refs: guard gate %s: %w", fl.Path(), err)
	}
	return &gate{fl: fl}, nil
}

// unlock releases the gate.
func (g *gate) unlock() { g.fl.Unlock() }

// heldGuard is a guard file this process created and holds flocked for as
// long as its writer lives; the kernel drops the flock if the process dies.
type heldGuard struct {
	path string
	fl   *flock.Flock
	fs   fileSystem
}

// createGuard creates the guard path with O_CREAT|O_EXCL (SPEC §2.5 step
// 1), writes owner into it and flocks it, all under the shared gate, so no
// prober (which needs the gate exclusive) can see the guard before its
// flock is held. An existing guard is an error satisfying
// errors.Is(err, fs.ErrExist), at once: writers never wait for a guard.
func (s *Store) createGuard(ctx context.Context, path, owner string) (*heldGuard, error) {
	g, err := s.lockGate(ctx, false)
	if err != nil {
		return nil, err
	}
	defer g.unlock()
	// The mode is set by the create itself, so the guard is marked as
	// tine's from its first instant (ownGuard); the descriptor stays
	// writable whatever the mode.
	f, err := s.fs.openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollowFlag, guardPerm)
	if err != nil {
		return nil, err
	}
	_, werr := f.Write([]byte(owner))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if guardWindowHook != nil {
			guardWindowHook(path)
		}
		// The path still names the file just created: guards are removed
		// only by their holder or under the exclusive gate.
		fl := flock.New(path, flock.SetFlag(os.O_RDONLY|noFollowFlag))
		ok, lerr := fl.TryLock()
		if lerr == nil && ok {
			return &heldGuard{path: path, fl: fl, fs: s.fs}, nil
		}
		werr = lerr
		if werr == nil {
			werr = errors.New("its flock is held by someone else")
		}
	}
	s.fs.remove(path)
	return nil, fmt.Errorf("write guard %s: %w", path, werr)
}

// release removes the guard, then drops its flock. The order matters: a
// prober that took the flock of a still-present guard would remove it, and
// by then the path could name a new writer's guard. A guard that cannot be
// removed stays behind with its flock free: the next writer recovers it as
// a dead writer's.
func (g *heldGuard) release() {
	g.fs.remove(g.path)
	g.fl.Unlock()
}

// abandon drops the flock and leaves the guard on disk, as a crash would:
// after the commit point the guards stay for Recover.
func (g *heldGuard) abandon() { g.fl.Unlock() }

// probe tells whether the writer that created the guard or journal at path
// is alive. The caller holds the gate exclusive, so no writer is between
// creating a file and flocking it. When the flock is free the writer is
// dead and probe returns it held, with the file's FileInfo: the caller may
// remove path, and must unlock it afterwards. A path that vanished or now
// names another file is reported alive (leave it alone).
func probe(path string) (dead *flock.Flock, fi os.FileInfo, alive bool, err error) {
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY|noFollowFlag))
	ok, err := fl.TryLock()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("refs: probe %s: %w", path, err)
	}
	if !ok {
		return nil, nil, true, nil
	}
	held, herr := fl.Stat()
	now, nerr := os.Lstat(path)
	if herr != nil || nerr != nil || !os.SameFile(held, now) {
		fl.Unlock()
		return nil, nil, true, nil
	}
	return fl, held, false, nil
}
