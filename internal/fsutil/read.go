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
	// ErrBadPath means a path given to OpenNoSymlinks is not a relative
	// slash path of plain components.
	ErrBadPath = errors.New("not a relative slash path of plain components")
)

// ReadRegular reads all of f, which must be a regular file of at most limit
// bytes. It checks the file that was opened (fstat), never a name that may
// have changed since, and reads at most limit+1 bytes whatever the file
// grows to while it is read. Errors do not repeat f's name: the caller
// names the file as its user knows it.
func ReadRegular(f *os.File, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%d bytes, more than %d: %w", fi.Size(), limit, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge)
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
