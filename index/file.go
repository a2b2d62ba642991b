package index

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/tinehq/tine/internal/fsutil"
)

// Dir and File place the catalog relative to the repository directory:
// under objects/ but outside the five type directories, where OpenTine's
// reader and every fsck skip it (SPEC §2.1 reserves indexes/ as empty).
const (
	Dir  = "objects/catalog"
	File = "catalog"
)

// readFile reads the catalog at path. A missing file is (nil, nil). A
// symlink, a non-regular file or one over MaxFileBytes is an error wrapping
// ErrUnsafePath or ErrCorrupt; the size is checked before reading.
func readFile(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("catalog %s is a %s: %w", path, fi.Mode().Type(), ErrUnsafePath)
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("catalog %s: %d bytes: %w", path, fi.Size(), ErrCorrupt)
	}
	// The one bounded reader re-checks what it opened, so a file swapped in
	// since the Lstat is refused too.
	b, err := fsutil.ReadFileWith(path, fsutil.ReadOptions{Limit: MaxFileBytes, NoFollow: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil // replaced or deleted since the stat
	case errors.Is(err, fsutil.ErrNotRegular), errors.Is(err, fsutil.ErrSymlink):
		return nil, fmt.Errorf("catalog: %w: %w", err, ErrUnsafePath)
	case errors.Is(err, fsutil.ErrTooLarge):
		return nil, fmt.Errorf("catalog: %w: %w", err, ErrCorrupt)
	case err != nil:
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return b, nil
}

// writeFile replaces the catalog atomically, creating its directory. The
// directory must not be a symlink: the catalog never leaves objects/.
func writeFile(path string, b []byte) error {
	dir := filepath.Dir(path)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("catalog directory %s is a %s: %w", dir, fi.Mode().Type(), ErrUnsafePath)
	}
	if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, b, 0o644); err != nil {
		return fmt.Errorf("catalog %s: %w", path, err)
	}
	return nil
}

// lockIn creates dir (durably) and takes the exclusive flock on its file
// name, refusing a symlink there; what names the files in errors.
func lockIn(dir, name, what string) (*flock.Flock, error) {
	if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	fl := flock.New(filepath.Join(dir, name), flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollowLock), flock.SetPermissions(0o644))
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("%s: lock: %w", what, err)
	}
	return fl, nil
}

// writeNamed writes b durably under dir as the file named by name from
// its SHA-256, unless that file exists (then it holds these bytes), and
// returns the sum; what names the file in errors.
func writeNamed(dir string, name func([32]byte) string, b []byte, what string) ([32]byte, error) {
	sum := sha256.Sum256(b)
	path := filepath.Join(dir, name(sum))
	if _, err := os.Lstat(path); err == nil {
		return sum, nil
	}
	if err := fsutil.WriteFileAtomic(path, b, 0o444); err != nil {
		return sum, fmt.Errorf("%s: %w", what, err)
	}
	return sum, nil
}
