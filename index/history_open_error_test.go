package index

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/tinehq/tine/internal/fsutil"
)

// TestLayerOpenErrorOnlyDamageIsCorrupt: a layer that cannot be opened for
// a reason outside the index (too many open files, a mapping refused) is
// not called corrupt, so a reader falls back to the objects without
// resetting a sound index; a symlink or a directory in a layer's place is
// damage, and a vanished layer stays "not found" (a merge).
func TestLayerOpenErrorOnlyDamageIsCorrupt(t *testing.T) {
	transient := []error{
		&os.PathError{Op: "open", Path: "l", Err: syscall.EMFILE},
		&os.PathError{Op: "mmap", Path: "l", Err: syscall.ENOMEM},
	}
	for _, err := range transient {
		if got := layerOpenError(err); errors.Is(got, ErrHistoryCorrupt) {
			t.Errorf("%v is called corrupt", err)
		}
	}
	for _, err := range []error{fsutil.ErrSymlink, fsutil.ErrNotRegular} {
		if got := layerOpenError(err); !errors.Is(got, ErrHistoryCorrupt) {
			t.Errorf("%v is not called corrupt", err)
		}
	}
	gone := &os.PathError{Op: "open", Path: "l", Err: syscall.ENOENT}
	if got := layerOpenError(gone); !errors.Is(got, fs.ErrNotExist) || errors.Is(got, ErrHistoryCorrupt) {
		t.Errorf("a vanished layer = %v", got)
	}
}
