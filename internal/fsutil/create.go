package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// CreateFileAtomic writes data to path, which must not exist, so that
// readers see either no file or the complete one, and an existing file is
// never replaced, even one created by another process after the caller
// looked: a temporary file in the same directory is written, fsynced and
// closed, then hard-linked to path (link fails when path exists, where a
// rename would replace it), removed, and the directory fsynced. An
// existing path is reported with an error wrapping fs.ErrExist.
func CreateFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// The temporary name is removed whatever happens: after the link the
	// content lives on under path.
	defer os.Remove(tmp)
	if _, err = f.Write(data); err == nil {
		if err = f.Chmod(perm); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = os.Link(tmp, path); err != nil {
		if le, ok := err.(*os.LinkError); ok {
			return fmt.Errorf("%s: %w", path, le.Err)
		}
		return err
	}
	if err = os.Remove(tmp); err != nil {
		return &UnknownStateError{Path: path, Err: err}
	}
	if serr := SyncDir(dir); serr != nil {
		return &UnknownStateError{Path: path, Err: serr}
	}
	return nil
}
