package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tinehq/tine/objects"
)

// shallowCache holds the parsed shallow file while the file is unchanged
// (same file, size and modification time), so a log of a shallow clone
// whose every older event misses parses the file once, not once a miss.
type shallowCache struct {
	mu  sync.Mutex
	fi  os.FileInfo
	set map[objects.OID]bool
}

// onShallowBoundary reports whether the shallow file lists id. An absent
// file lists nothing; an unreadable or invalid one is an error. A cached
// set that does not list id is confirmed by reading the file again: a
// rewrite can keep the inode, size and modification time (same-length
// lines, a reused inode within one clock tick), and an unlisted miss is
// rare (it is reported as damage), while listed ones repeat.
func (r *Repo) onShallowBoundary(id objects.OID) (bool, error) {
	fi, err := os.Lstat(filepath.Join(r.root, "shallow"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("shallow file: %w", err)
	}
	c := &r.shallow
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := c.fi == nil || !os.SameFile(c.fi, fi) || c.fi.Size() != fi.Size() || !c.fi.ModTime().Equal(fi.ModTime())
	if !fresh && c.set[id] {
		return true, nil
	}
	set, err := r.shallowSet()
	if err != nil {
		return false, fmt.Errorf("shallow file: %w", err)
	}
	c.fi, c.set = fi, set
	return set[id], nil
}

// shallowMissError is a read's miss of an oid the shallow file lists:
// not found, by design (SPEC §2.7).
type shallowMissError struct{ err error }

// Error is the read's own message, saying where the object is.
func (e *shallowMissError) Error() string { return e.err.Error() + " (on the shallow boundary)" }

// Unwrap makes both objects.ErrNotFound and ErrBeyondShallow hold.
func (e *shallowMissError) Unwrap() []error { return []error{e.err, ErrBeyondShallow} }

// classifyMiss marks err, a read of id, when it is a miss of an oid on
// the shallow boundary; a shallow file that cannot be read is added to
// the error (the miss is then not explained). Other errors pass as they
// are.
func (r *Repo) classifyMiss(id objects.OID, err error) error {
	if !errors.Is(err, objects.ErrNotFound) {
		return err
	}
	ok, serr := r.onShallowBoundary(id)
	switch {
	case serr != nil:
		return errors.Join(err, serr)
	case ok:
		return &shallowMissError{err: err}
	}
	return err
}
