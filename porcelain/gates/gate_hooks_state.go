package gates

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

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
	if err := refuseStateLinks(stateDir, ""); err != nil {
		return err
	}
	if err := fsutil.MkdirAllSync(stateDir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", stateDir, err)
	}
	if err := refuseStateLinks(stateDir, HooksLockFile); err != nil {
		return err
	}
	path := filepath.Join(stateDir, HooksLockFile)
	l := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY|fsutil.NoFollow), flock.SetPermissions(0o644))
	ok, err := l.TryLock()
	if err == nil && !ok {
		if hookLockWait != nil {
			hookLockWait()
		}
		err = l.Lock()
	}
	if err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	defer l.Unlock()
	return fn()
}

// stateRel splits the path of the state file name (stateDir itself when
// name is empty) into the directory holding the state directory, trusted,
// and the path below it, in which no component may be a symlink.
func stateRel(stateDir, name string) (string, string) {
	rel := filepath.Base(stateDir)
	if name != "" {
		rel += "/" + name
	}
	return filepath.Dir(stateDir), rel
}

// readHookState reads the state file name of stateDir (the record or the
// tombstone), at most limit bytes, following no symlink: a linked state
// directory or file is refused with an error wrapping fsutil.ErrSymlink,
// a missing one satisfies errors.Is(err, os.ErrNotExist).
func readHookState(stateDir, name string, limit int64) ([]byte, error) {
	dir, rel := stateRel(stateDir, name)
	raw, err := fsutil.ReadFileNoSymlinks(dir, rel, limit)
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, stateLinkError(stateDir, name, err)
	}
	if errors.Is(err, fsutil.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w; tine gate setup and uninstall replace only a regular file there: remove it and run the command again", filepath.Join(stateDir, name), err)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", filepath.Join(stateDir, name), err)
	}
	return raw, err
}

// unreplaceable reports whether err, from reading the record or the
// tombstone, names a file setup or uninstall must not replace: a symlink,
// or something other than a regular file (a directory, a FIFO), which the
// write would refuse only after the settings files were written.
func unreplaceable(err error) bool {
	return errors.Is(err, fsutil.ErrSymlink) || errors.Is(err, fsutil.ErrNotRegular)
}

// writeHookState replaces the state file name of stateDir atomically, or
// removes it when data is nil, following no symlink.
func writeHookState(stateDir, name string, data []byte) error {
	dir, rel := stateRel(stateDir, name)
	p := filepath.Join(stateDir, name)
	var err error
	if data == nil {
		if err = fsutil.RemoveNoSymlinks(dir, rel); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	} else {
		err = fsutil.WriteFileAtomicNoSymlinks(dir, rel, data, 0o644)
	}
	switch {
	case errors.Is(err, fsutil.ErrSymlink):
		return stateLinkError(stateDir, name, err)
	case err != nil && data == nil:
		return fmt.Errorf("removing %s: %w", p, err)
	case err != nil:
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// refuseStateLinks refuses stateDir, or stateDir/name when name is not
// empty, when it is or lies in a symlink.
func refuseStateLinks(stateDir, name string) error {
	if linkedComponent(stateRel(stateDir, name)) != "" {
		return stateLinkError(stateDir, name, fsutil.ErrSymlink)
	}
	return nil
}

// stateLinkError explains the refusal of a symlink in the gate state
// directory, naming it when it can still be found.
func stateLinkError(stateDir, name string, err error) error {
	if p := linkedComponent(stateRel(stateDir, name)); p != "" {
		err = fmt.Errorf("%s %w", p, fsutil.ErrSymlink)
	}
	return fmt.Errorf("%w: tine gate setup and uninstall never follow a symlink in the gate state directory (it could point outside the repository); replace the link with a regular file or directory and run the command again", err)
}

// linkedComponent returns the first component of the slash path rel
// under dir that is a symlink, joined to dir, or "" when none is.
func linkedComponent(dir, rel string) string {
	p := dir
	for _, c := range strings.Split(rel, "/") {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if err != nil {
			return ""
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}
