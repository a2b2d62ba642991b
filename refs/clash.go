package refs

import (
	"fmt"
	"os"
	"strings"
)

// A ref name is a path under refs/, so heads/a and heads/a/b cannot both
// exist: one would be a file and a directory at once. The checks here find
// such a clash before anything is written, so the error can say so instead
// of failing at the rename, after the point where a write's outcome is
// reported as unknown.

// clashMessage ends every name-clash error: the caller's data is intact.
const clashMessage = "a name cannot be both a ref and a directory of refs; nothing was written"

// checkTxnClash refuses a transaction naming both a ref and a ref below it.
// ops are sorted by name and free of duplicates, so every name between
// heads/a and heads/a/b starts with heads/a: the inner scan stops at the
// first name that does not.
func checkTxnClash(ops []txOp) error {
	for i := range ops {
		for j := i + 1; j < len(ops) && strings.HasPrefix(ops[j].norm, ops[i].norm); j++ {
			if ops[j].norm[len(ops[i].norm)] == '/' {
				return fmt.Errorf("refs %s and %s: %w (%s)", ops[i].norm, ops[j].norm, ErrNameClash, clashMessage)
			}
		}
	}
	return nil
}

// clashError explains a failure to create the directory of ref norm: when
// a ref file sits where a directory of its name must be, the names clash.
func (s *Store) clashError(norm string, err error) error {
	parts := strings.Split(norm, "/")
	for i := 2; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if fi, lerr := os.Lstat(s.refPath(prefix)); lerr == nil && !fi.IsDir() {
			return fmt.Errorf("ref %s: %w with ref %s (%s)", norm, ErrNameClash, prefix, clashMessage)
		}
	}
	return fmt.Errorf("ref %s: cannot create its directory, nothing was written: %w", norm, err)
}

// checkNotDir refuses to write ref norm when refs/<norm> is a directory of
// other refs. An empty directory (left by a crash between a ref's deletion
// and the pruning of its directory) is removed instead. The caller holds
// the ref's guard.
func (s *Store) checkNotDir(norm string) error {
	path := s.refPath(norm)
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() || os.Remove(path) == nil {
		return nil
	}
	other := "directory " + s.relPath(path)
	if below, err := walkFiles(path, nil); err == nil && len(below) > 0 {
		name := strings.TrimSuffix(strings.TrimSuffix(below[0], stagingSuffix), guardSuffix)
		other = "ref " + norm + "/" + name
	}
	return fmt.Errorf("ref %s: %w with %s (%s)", norm, ErrNameClash, other, clashMessage)
}
