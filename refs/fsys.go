package refs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
)

// fileSystem is every file operation the write and recovery paths of refs
// perform on ref files, staging files, guards, journals, reflogs and the
// shallow file. It exists so that tests can fail any one of them (the
// fault-injection tests substitute a faulty implementation for Store.fs);
// the store always uses osFS otherwise. Metadata probes (Lstat, ReadDir)
// and flocks stay direct: they decide nothing a fault could tear.
type fileSystem interface {
	// openFile is os.OpenFile; with O_CREATE it creates the file.
	openFile(path string, flag int, perm os.FileMode) (file, error)
	// openRead opens path for reading without following a final symlink
	// (openNoFollow).
	openRead(path string) (file, error)
	rename(oldpath, newpath string) error
	// remove removes a file (never a directory: one there is an error).
	remove(path string) error
	// removeDir removes an empty directory.
	removeDir(path string) error
	// syncDir fsyncs a directory (fsutil.SyncDir).
	syncDir(dir string) error
	// mkdirAll creates dir and its parents durably (fsutil.MkdirAllSync).
	mkdirAll(dir string, perm os.FileMode) error
}

// file is the part of *os.File that refs uses.
type file interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Chmod(mode os.FileMode) error
	Sync() error
	Close() error
}

// osFS is the real file system.
type osFS struct{}

func (osFS) openFile(path string, flag int, perm os.FileMode) (file, error) {
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err // not a typed nil in an interface
	}
	return f, nil
}

func (osFS) openRead(path string) (file, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osFS) rename(oldpath, newpath string) error        { return os.Rename(oldpath, newpath) }
func (osFS) remove(path string) error                    { return removeFile(path) }
func (osFS) removeDir(path string) error                 { return removeDir(path) }
func (osFS) syncDir(dir string) error                    { return fsutil.SyncDir(dir) }
func (osFS) mkdirAll(dir string, perm os.FileMode) error { return fsutil.MkdirAllSync(dir, perm) }

// writeFileAtomic writes data to path so that readers see the old file or
// the whole new one: a temporary .tmp-<name>-<random> in the same
// directory is written, fsynced, closed, renamed over path, and the
// directory fsynced. A failure before the rename removes the temporary
// and leaves path as it was; a failure after it is a
// *fsutil.UnknownStateError.
func (s *Store) writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	id, err := s.newTxnID()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, ".tmp-"+filepath.Base(path)+"-"+id)
	// The errors of the file operations name the file; each wrap says
	// which step failed.
	f, err := s.fs.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollowFlag, perm)
	if err != nil {
		return fmt.Errorf("create the temporary file: %w", err)
	}
	abort := func(step string, err error) error {
		f.Close()
		s.fs.remove(tmp)
		return fmt.Errorf("%s the temporary file: %w", step, err)
	}
	if _, err := f.Write(data); err != nil {
		return abort("write", err)
	}
	// The umask must not narrow the mode readers rely on.
	if err := f.Chmod(perm); err != nil {
		return abort("chmod", err)
	}
	if err := f.Sync(); err != nil {
		return abort("fsync", err)
	}
	if err := f.Close(); err != nil {
		s.fs.remove(tmp)
		return fmt.Errorf("close the temporary file: %w", err)
	}
	if err := s.fs.rename(tmp, path); err != nil {
		s.fs.remove(tmp)
		return fmt.Errorf("rename the temporary file over %s: %w", s.relPath(path), err)
	}
	if err := s.fs.syncDir(dir); err != nil {
		return &fsutil.UnknownStateError{Path: s.relPath(path), Err: err}
	}
	return nil
}
