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

// Every file in the gate state directory (GateStateDir: journals, leases,
// sessions, the hook record and tombstone, and their locks) is read,
// written, removed and locked through the helpers below, which follow no
// symlink from the state directory down: the directory holding it (the
// repository, .tine) is trusted, but a link planted at .tine/gate, at one
// of its directories or at a file in it is refused by name, never written
// or created through and never replaced. A name is a slash path relative
// to the state directory ("loops/NAME.json").

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

// statePath is the file name of stateDir as a path, for messages.
func statePath(stateDir, name string) string {
	return filepath.Join(stateDir, filepath.FromSlash(name))
}

// readStateFile reads the state file name of stateDir, at most limit
// bytes, following no symlink: a linked state directory or file is
// refused with an error wrapping fsutil.ErrSymlink, so what a link reaches
// never passes for tine's state, and one that is not a regular file with
// an error wrapping fsutil.ErrNotRegular; a missing one satisfies
// errors.Is(err, os.ErrNotExist).
func readStateFile(stateDir, name string, limit int64) ([]byte, error) {
	dir, rel := stateRel(stateDir, name)
	raw, err := fsutil.ReadFileNoSymlinks(dir, rel, limit)
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, stateLinkError(stateDir, name, err)
	}
	if errors.Is(err, fsutil.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w; tine replaces only a regular file there: remove it and run the command again", statePath(stateDir, name), err)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", statePath(stateDir, name), err)
	}
	return raw, err
}

// writeStateFile replaces the state file name of stateDir atomically,
// creating its directories, or removes it when data is nil (a missing
// file is not an error), following no symlink.
func writeStateFile(stateDir, name string, data []byte) error {
	dir, rel := stateRel(stateDir, name)
	p := statePath(stateDir, name)
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

// stateLock returns the lock file name of stateDir, not yet locked. The
// file and its directories are created first following no symlink; the
// lock then opens it by path with O_NOFOLLOW and without O_CREATE, so
// neither open creates anything through a link, even one planted between
// the two.
func stateLock(stateDir, name string) (*flock.Flock, error) {
	dir, rel := stateRel(stateDir, name)
	err := fsutil.EnsureFileNoSymlinks(dir, rel, 0o644)
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, stateLinkError(stateDir, name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("creating the lock %s: %w", statePath(stateDir, name), err)
	}
	return flock.New(statePath(stateDir, name), flock.SetFlag(os.O_RDONLY|fsutil.NoFollow)), nil
}

// lockStateError explains a failed lock of name, naming a symlink put in
// its place since stateLock created it.
func lockStateError(stateDir, name string, err error) error {
	if refuseStateLinks(stateDir, name) != nil {
		return stateLinkError(stateDir, name, fsutil.ErrSymlink)
	}
	return fmt.Errorf("locking %s: %w", statePath(stateDir, name), err)
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
	return fmt.Errorf("%w: tine never follows a symlink in the gate state directory (it could point outside the repository); replace the link with a regular file or directory, or remove it, and run the command again", err)
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
