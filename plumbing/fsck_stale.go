package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// removeStale deletes crash leftovers older than the cutoff (FsckOptions):
// object temp files through the object store, and ref guards, staging
// files, temp files and shallow.lock. It runs after the ref store's
// recovery, so guards of a committed transaction have already been rolled
// forward and released; what remains belongs to writers that died before
// their commit point, whose refs are unchanged.
//
// Removing a guard is the manual step git asks for ("remove the .lock file
// if no git process is running"); the age cutoff is what makes it safe to
// automate, since no live update holds a guard for that long.
func (f *fsck) removeStale() error {
	cutoff := f.opt.Now().Add(-f.opt.StaleAfter)
	anyAge := f.opt.StaleAfter < 0
	objCutoff := cutoff
	if anyAge {
		objCutoff = f.opt.Now().Add(time.Hour) // every existing temp file
	}
	n, err := f.r.objs.RemoveStaleTemp(f.ctx, objCutoff)
	if err != nil {
		return fmt.Errorf("remove object temp files: %w", err)
	}
	f.res.RemovedTemp = n
	old := func(info fs.FileInfo) bool {
		return info.Mode().IsRegular() && (anyAge || info.ModTime().Before(cutoff))
	}
	for _, top := range []string{"refs", "logs"} {
		dir := filepath.Join(f.r.root, top)
		err := walkFiles(dir, func(rel string, d fs.DirEntry) error {
			base := filepath.Base(rel)
			leftover := strings.HasPrefix(base, ".tmp-") || (top == "refs" && strings.HasSuffix(base, ".lock"))
			if !leftover {
				return nil
			}
			if info, err := d.Info(); err != nil || !old(info) {
				return nil
			}
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			f.res.Removed = append(f.res.Removed, top+"/"+rel)
			return nil
		})
		if err != nil {
			return fmt.Errorf("remove stale %s files: %w", top, err)
		}
	}
	p := filepath.Join(f.r.root, "shallow.lock")
	if st, err := os.Lstat(p); err == nil && old(st) {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		f.res.Removed = append(f.res.Removed, "shallow.lock")
	}
	return nil
}
