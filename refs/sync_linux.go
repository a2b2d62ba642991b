//go:build linux

package refs

import (
	"os"

	"golang.org/x/sys/unix"
)

// haveSyncFS reports whether syncFS is implemented here.
const haveSyncFS = true

// syncFS flushes the whole file system holding dir with syncfs(2), whose
// error (since Linux 5.8) reports a writeback failure of any file on it.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return &os.PathError{Op: "syncfs", Path: dir, Err: err}
	}
	return nil
}
