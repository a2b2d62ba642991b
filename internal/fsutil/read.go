package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Errors of the confined, bounded readers. Each is wrapped with the path
// at fault; test with errors.Is.
var (
	// ErrNotRegular means what was opened is not a regular file (a
	// directory, FIFO, socket or device): reading it could block forever
	// or never end.
	ErrNotRegular = errors.New("not a regular file")
	// ErrSymlink means a component of a path that must not follow links
	// is a symlink.
	ErrSymlink = errors.New("is a symlink")
	// ErrTooLarge means a file is over the reader's bound.
	ErrTooLarge = errors.New("file too large")
	// ErrHardLinked means a file has more hard links than its reader
	// allows: another name could change it behind the reader's rules.
	ErrHardLinked = errors.New("is hard-linked")
	// ErrBadPath means a path given to OpenNoSymlinks is not a relative
	// slash path of plain components.
	ErrBadPath = errors.New("not a relative slash path of plain components")
)

// ReadOptions are the rules of a bounded read of a regular file. The zero
// value of every field but Limit adds no rule.
type ReadOptions struct {
	// Limit is the most bytes the file may hold.
	Limit int64
	// KeepOver returns the first Limit+1 bytes of a larger file instead of
	// ErrTooLarge, for a caller whose format reports an oversized file with
	// its own reason (config.json, shallow, .tine artifacts).
	KeepOver bool
	// MaxLinks, when not zero, refuses a file with more hard links
	// (ErrHardLinked), where the platform reports a link count.
	MaxLinks uint64
	// NoFollow refuses a symlink as the final component of the path
	// (ErrSymlink); only ReadFileWith opens by path.
	NoFollow bool
}

// ReadRegular reads all of f, which must be a regular file of at most limit
// bytes (ReadRegularWith with only a Limit).
func ReadRegular(f *os.File, limit int64) ([]byte, error) {
	return ReadRegularWith(f, ReadOptions{Limit: limit})
}

// StatReader is an opened file as a bounded read uses it: *os.File is one,
// and so is a wrapper a test uses to inject faults.
type StatReader interface {
	io.Reader
	Stat() (os.FileInfo, error)
}

// ReadRegularWith reads all of f, which must be a regular file, under opt.
// It checks the file that was opened (fstat), never a name that may have
// changed since, and reads at most Limit+1 bytes whatever the file grows
// to while it is read. Errors do not repeat f's name: the caller names the
// file as its user knows it.
func ReadRegularWith(f StatReader, opt ReadOptions) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(fi.Mode()))
	}
	if n, ok := linkCount(fi); ok && opt.MaxLinks != 0 && n > opt.MaxLinks {
		return nil, fmt.Errorf("%w (%d links)", ErrHardLinked, n)
	}
	if fi.Size() > opt.Limit && !opt.KeepOver {
		return nil, fmt.Errorf("%d bytes, more than %d: %w", fi.Size(), opt.Limit, ErrTooLarge)
	}
	b, err := readSized(io.LimitReader(f, opt.Limit+1), min(fi.Size(), opt.Limit))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > opt.Limit && !opt.KeepOver {
		return nil, fmt.Errorf("more than %d bytes: %w", opt.Limit, ErrTooLarge)
	}
	return b, nil
}

// ReadFileWith reads the regular file at path under opt: the open is
// non-blocking, so a FIFO is refused at once instead of waited on, and with
// NoFollow a final symlink is refused rather than followed. Errors name
// path; a missing file satisfies errors.Is(err, fs.ErrNotExist).
func ReadFileWith(path string, opt ReadOptions) ([]byte, error) {
	f, err := openRead(path, opt.NoFollow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadRegularWith(f, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// ReadFileNoSymlinks reads the regular file rel under dir, following no
// symlink at any component of rel (OpenNoSymlinks), bounded by limit
// (ReadRegular).
func ReadFileNoSymlinks(dir, rel string, limit int64) ([]byte, error) {
	f, err := OpenNoSymlinks(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadRegular(f, limit)
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", rel, err)
	}
	return b, nil
}

// splitLocal splits a relative slash path into its components, refusing
// an empty path, an absolute one, a backslash and "", "." or ".."
// components.
func splitLocal(rel string) ([]string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || strings.ContainsRune(rel, 0) {
		return nil, fmt.Errorf("path %q: %w", rel, ErrBadPath)
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("path %q: component %q is not allowed: %w", rel, p, ErrBadPath)
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) { // reserved names (NUL on Windows)
		return nil, fmt.Errorf("path %q: %w", rel, ErrBadPath)
	}
	return parts, nil
}

// kindOf names a non-regular file mode for a message.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not regular"
}

// readSized reads r to its end into a buffer sized for the size the file
// had when stat'ed (plus room to see the end), so a file of several
// megabytes (a catalog) is read into one allocation instead of the
// doubling copies of io.ReadAll; a file that grew since is still read
// whole.
func readSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, max(size, 0)+512)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
