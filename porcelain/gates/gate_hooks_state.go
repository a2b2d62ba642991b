package gates

import (
	"errors"

	"github.com/tinehq/tine/internal/fsutil"
)

// HooksLockFile is the lock, in the gate state directory, that gate setup
// and uninstall hold while they read and rewrite the agent settings files,
// HooksCreatedFile and HooksDisabledFile, so two of them running at once
// (for different adapters, say) never lose each other's changes.
const HooksLockFile = "hooks.lock"

// Test hooks: hookStateRead runs after setup or uninstall read the record
// and the settings files, before they write anything; hookLockWait runs
// when the lock is held by another and this one is about to wait for it.
// A test uses them to interleave two runs deterministically.
var hookStateRead, hookLockWait func()

// withHookStateLock runs fn holding the exclusive HooksLockFile of
// stateDir, creating stateDir; with no state directory fn runs unlocked.
// A stateDir that is a symlink is refused, and the lock file is opened
// without following one. The kernel drops the lock of a process that
// dies, so a killed setup never blocks the next.
func withHookStateLock(stateDir string, fn func() error) error {
	if stateDir == "" {
		return fn()
	}
	l, err := stateLock(stateDir, HooksLockFile)
	if err != nil {
		return err
	}
	ok, err := l.TryLock()
	if err == nil && !ok {
		if hookLockWait != nil {
			hookLockWait()
		}
		err = l.Lock()
	}
	if err != nil {
		return lockStateError(stateDir, HooksLockFile, err)
	}
	defer l.Unlock()
	return fn()
}

// unreplaceable reports whether err, from reading the record or the
// tombstone, names a file setup or uninstall must not replace: a symlink,
// or something other than a regular file (a directory, a FIFO), which the
// write would refuse only after the settings files were written.
func unreplaceable(err error) bool {
	return errors.Is(err, fsutil.ErrSymlink) || errors.Is(err, fsutil.ErrNotRegular)
}
