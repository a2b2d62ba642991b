package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RemovePack deletes the files of storage pack name (a name Packs
// returns), the pack file before its index: a crash between the two
// leaves an index without its pack, which indexes nothing and is cleared
// (RemoveGarbage), never a pack without its index, which may hold needed
// objects and is kept until tine index-pack. It holds the directory lock
// exclusive (lock.go), so a writer committing a pack of the same name is
// never between its renames meanwhile. A file already gone is not an
// error. The caller removes only packs whose objects are stored elsewhere,
// and fsyncs the directory (fsutil.SyncDir) when done.
func (s *Store) RemovePack(name string) error {
	if _, _, ok := spFileName(name + ".pack"); !ok {
		return fmt.Errorf("remove storage pack %q: not a storage pack name (pack- and 64 hex digits)", name)
	}
	release, err := lockDir(s.dir, true)
	if err != nil {
		return fmt.Errorf("remove storage pack %s: %w", name, err)
	}
	defer release()
	for _, ext := range []string{".pack", ".idx"} {
		if ext == ".idx" && removeWindowHook != nil {
			removeWindowHook(name)
		}
		if err := os.Remove(filepath.Join(s.dir, name+ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove storage pack %s: %w", name, err)
		}
	}
	return nil
}
