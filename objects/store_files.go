package objects

import (
	"fmt"
	"io/fs"
)

// The on-disk stores (objects/loose and objects/pack) share these file
// conventions, so one store's cleanup never mistakes the other's files.
const (
	// TempPrefix starts the name of every temporary file a store writes
	// under objects/. A name with it is never 2 or 62 hex digits, so
	// enumeration skips it, and gc may remove it once it is old.
	TempPrefix = ".tmp-"
	// StoreDirPerm is the mode of the directories a store creates.
	StoreDirPerm = 0o755
	// StoredFilePerm is the mode of object, pack and index files: read-only,
	// because their content never changes and the mode guards against
	// tools editing one.
	StoredFilePerm = 0o444
)

// CheckPlainFile enforces SPEC §2.1 path confinement on a stored file: a
// symlink, a hard-linked file or anything but a regular file is refused
// with an error wrapping ErrUnsafeFile.
func CheckPlainFile(fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("is a symlink: %w", ErrUnsafeFile)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("is not a regular file: %w", ErrUnsafeFile)
	case linkCount(fi) > 1:
		return fmt.Errorf("is hard-linked: %w", ErrUnsafeFile)
	}
	return nil
}
