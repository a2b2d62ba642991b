package plumbing

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
)

// storagePackRel is objects/pack/ relative to the repository.
const storagePackRel = "objects/" + objects.StoragePackDir

// checkStoragePacks verifies every storage pack completely and reports
// what crashed writers left in objects/pack/ as warnings.
func (f *fsck) checkStoragePacks() error {
	if err := f.r.packsErr; err != nil {
		f.problem(Problem{Code: ProblemStoragePack, Path: storagePackRel, Message: err.Error()})
	}
	names, err := storagePackNames(f.r)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := f.ctx.Err(); err != nil {
			return err
		}
		c := verifyOnePack(f.ctx, f.r, n)
		if !c.OK {
			f.problem(Problem{Code: ProblemStoragePack, Path: storagePackRel + "/" + n + ".pack", Message: c.Error})
		}
	}
	return f.packGarbageWarnings()
}

// packGarbageWarnings warns about temp files, packs without an index and
// gc scratch directories in objects/pack/, and about names no tine writer
// makes.
func (f *fsck) packGarbageWarnings() error {
	ents, err := os.ReadDir(filepath.Join(f.r.root, "objects", objects.StoragePackDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	indexed := map[string]bool{}
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".idx"); ok {
			indexed[n] = true
		}
	}
	for _, e := range ents {
		name := e.Name()
		path := storagePackRel + "/" + name
		base, isPack := strings.CutSuffix(name, ".pack")
		h, named := strings.CutPrefix(base, "pack-")
		switch {
		case strings.HasPrefix(name, gcViewPrefix):
			f.warn(Problem{Code: WarnPackGarbage, Path: path, Message: "scratch directory of an interrupted gc"})
		case strings.HasPrefix(name, ".tmp-"):
			f.warn(Problem{Code: WarnTempFile, Path: path, Message: "temporary file of an interrupted pack write"})
		case isPack && named && isLowerHexN(h, 64) && !indexed[base]:
			f.warn(Problem{Code: WarnPackGarbage, Path: path, Message: "storage pack without an index (a pack write interrupted before its commit); readers skip it"})
		case isPack && named && isLowerHexN(h, 64), indexed[strings.TrimSuffix(name, ".idx")]:
		default:
			f.warn(Problem{Code: WarnStray, Path: path, Message: "not a storage pack name; readers skip it"})
		}
	}
	return nil
}

// removePackGarbage deletes pack leftovers modified before cutoff
// (FsckOptions.RemoveStale): temp files, packs without an index and gc
// scratch directories. It returns how many it removed.
func (f *fsck) removePackGarbage(cutoff time.Time) (int, error) {
	dir := filepath.Join(f.r.root, "objects", objects.StoragePackDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), gcViewPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return n, err
			}
			n++
		}
	}
	if f.r.packs == nil {
		return n, nil
	}
	m, err := f.r.packs.RemoveGarbage(f.ctx, cutoff)
	return n + m, err
}
