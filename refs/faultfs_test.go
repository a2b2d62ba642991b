package refs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// errInjected is the cause of every failure a faultFS injects.
var errInjected = errors.New("injected fault")

// Kinds of file operation a faultFS counts, one per fileSystem or file
// call that can fail on a real disk.
const (
	stepCreate  = "create"  // openFile with O_CREATE
	stepOpen    = "open"    // openFile without O_CREATE, openRead
	stepRead    = "read"    // Read, ReadAt
	stepWrite   = "write"   // Write, WriteAt, Truncate, Chmod
	stepFsync   = "fsync"   // Sync of a file
	stepClose   = "close"   // Close
	stepRename  = "rename"  // rename
	stepRemove  = "remove"  // remove
	stepSyncDir = "syncdir" // syncDir
	stepMkdir   = "mkdir"   // mkdirAll
)

// step is one operation a faultFS saw: its kind and the file's path.
type step struct {
	kind string
	path string
}

// String names the step with the path relative to the repository.
func (s step) String() string { return s.kind + " " + s.path }

// faultFS is a fileSystem over the real one that records every operation
// and fails the failAt-th of them (counting from 1; 0 fails none) before
// it takes effect, with an error shaped like the operating system's
// (naming the operation and the path) whose cause is errInjected. With
// kind set only operations of that kind are counted.
type faultFS struct {
	root   string
	kind   string
	failAt int

	mu     sync.Mutex
	steps  []step
	n      int
	failed *step
	// failedIndex is the failed step's index in steps.
	failedIndex int
	// failedRemoves are the paths whose removal the real file system
	// refused: a file already gone, a directory not empty.
	failedRemoves []string
}

// hit records an operation and reports whether it must fail.
func (f *faultFS) hit(kind, path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	rel, err := filepath.Rel(f.root, path)
	if err != nil {
		rel = path
	}
	st := step{kind: kind, path: filepath.ToSlash(rel)}
	f.steps = append(f.steps, st)
	if f.kind != "" && kind != f.kind {
		return false
	}
	f.n++
	if f.n != f.failAt {
		return false
	}
	f.failed = &st
	f.failedIndex = len(f.steps) - 1
	return true
}

// fault is the error of a failed operation on path.
func fault(op, path string) error { return &os.PathError{Op: op, Path: path, Err: errInjected} }

func (f *faultFS) openFile(path string, flag int, perm os.FileMode) (file, error) {
	kind := stepOpen
	if flag&os.O_CREATE != 0 {
		kind = stepCreate
	}
	if f.hit(kind, path) {
		return nil, fault("open", path)
	}
	h, err := osFS{}.openFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{f: h, fs: f, path: path}, nil
}

func (f *faultFS) openRead(path string) (file, error) {
	if f.hit(stepOpen, path) {
		return nil, fault("open", path)
	}
	h, err := osFS{}.openRead(path)
	if err != nil {
		return nil, err
	}
	return &faultFile{f: h, fs: f, path: path}, nil
}

func (f *faultFS) rename(oldpath, newpath string) error {
	if f.hit(stepRename, oldpath) {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: errInjected}
	}
	return os.Rename(oldpath, newpath)
}

func (f *faultFS) remove(path string) error {
	if f.hit(stepRemove, path) {
		return fault("remove", path)
	}
	return f.missed(path, os.Remove(path))
}

// removeDir counts as a remove.
func (f *faultFS) removeDir(path string) error {
	if f.hit(stepRemove, path) {
		return fault("remove", path)
	}
	return f.missed(path, os.Remove(path))
}

// missed records a remove the real file system refused (the file was
// not there, or the directory not empty) and returns err.
func (f *faultFS) missed(path string, err error) error {
	if err != nil {
		f.mu.Lock()
		f.failedRemoves = append(f.failedRemoves, path)
		f.mu.Unlock()
	}
	return err
}

func (f *faultFS) syncDir(dir string) error {
	if f.hit(stepSyncDir, dir) {
		return fmt.Errorf("sync directory %s: %w", dir, errInjected)
	}
	return osFS{}.syncDir(dir)
}

func (f *faultFS) mkdirAll(dir string, perm os.FileMode) error {
	if f.hit(stepMkdir, dir) {
		return fault("mkdir", dir)
	}
	return osFS{}.mkdirAll(dir, perm)
}

// count returns how many steps of kind f saw.
func (f *faultFS) count(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, st := range f.steps {
		if st.kind == kind {
			n++
		}
	}
	return n
}

// faultFile is a file of a faultFS.
type faultFile struct {
	f    file
	fs   *faultFS
	path string
}

func (h *faultFile) Read(p []byte) (int, error) {
	if h.fs.hit(stepRead, h.path) {
		return 0, fault("read", h.path)
	}
	return h.f.Read(p)
}

func (h *faultFile) ReadAt(p []byte, off int64) (int, error) {
	if h.fs.hit(stepRead, h.path) {
		return 0, fault("read", h.path)
	}
	return h.f.ReadAt(p, off)
}

func (h *faultFile) Write(p []byte) (int, error) {
	if h.fs.hit(stepWrite, h.path) {
		return 0, fault("write", h.path)
	}
	return h.f.Write(p)
}

func (h *faultFile) WriteAt(p []byte, off int64) (int, error) {
	if h.fs.hit(stepWrite, h.path) {
		return 0, fault("write", h.path)
	}
	return h.f.WriteAt(p, off)
}

func (h *faultFile) Truncate(size int64) error {
	if h.fs.hit(stepWrite, h.path) {
		return fault("truncate", h.path)
	}
	return h.f.Truncate(size)
}

func (h *faultFile) Chmod(mode os.FileMode) error {
	if h.fs.hit(stepWrite, h.path) {
		return fault("chmod", h.path)
	}
	return h.f.Chmod(mode)
}

func (h *faultFile) Sync() error {
	if h.fs.hit(stepFsync, h.path) {
		return fault("sync", h.path)
	}
	return h.f.Sync()
}

// Close closes the file even when it reports a failure, as a real close
// that fails still releases the descriptor.
func (h *faultFile) Close() error {
	err := h.f.Close()
	if h.fs.hit(stepClose, h.path) {
		return fault("close", h.path)
	}
	return err
}

func (h *faultFile) Stat() (os.FileInfo, error) { return h.f.Stat() }
