// Package fsutil holds the crash-safe file primitives every write path of
// tine uses: a temporary file in the target directory, fsync, rename, and an
// fsync of the directory, so that nothing half-written is ever visible under
// its final name.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SyncDir fsyncs a directory so that a rename or create inside it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// WriteFileAtomic writes data to path so that readers see either the old
// file or the complete new one: a temporary file in the same directory is
// written, fsynced, closed, renamed over path, and the directory fsynced.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return WriteAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for content produced by a callback, so a
// large file can be streamed. If fill fails, nothing is left behind.
func WriteAtomic(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Past the rename the new content is visible; a failed directory sync
	// means its durability is unknown, which the caller must report as such.
	if serr := SyncDir(dir); serr != nil {
		return &UnknownStateError{Path: path, Err: serr}
	}
	return nil
}

// UnknownStateError reports a failure after the commit point of a write: the
// new content is visible but may not be durable. Callers report it rather
// than retry blindly.
type UnknownStateError struct {
	Path string
	Err  error
}

// Error describes the failure.
func (e *UnknownStateError) Error() string {
	return fmt.Sprintf("%s: state unknown (the change may or may not have taken effect): %v", e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *UnknownStateError) Unwrap() error { return e.Err }

// MkdirAllSync creates dir and any missing parents, fsyncing each parent
// whose entries changed so the new directories survive a crash.
func MkdirAllSync(dir string, perm os.FileMode) error {
	if fi, err := os.Lstat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := MkdirAllSync(parent, perm); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, perm); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return SyncDir(parent)
}
