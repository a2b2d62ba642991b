package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// storagePackRel is objects/pack/ relative to the repository.
const storagePackRel = "objects/" + pack.Dir

// fsckPacked is one packed copy of an object as fsck read it.
type fsckPacked struct {
	id    objects.OID
	pack  string
	entry fsckEntry
	err   error
}

// verifyPacks verifies every storage pack completely, reading each once
// (pack.Store.VerifyEach: trailer, index, tiling, every block's
// CRC-32C and decompression, every entry re-hashed, on every CPU), and
// returns every packed copy in enumeration order (then by pack name). The
// packs' verdicts wait in f.packVerdicts for checkStoragePacks.
func (f *fsck) verifyPacks() []fsckPacked {
	verdicts := map[string]PackCheck{}
	f.packVerdicts = verdicts
	if f.r.packs == nil {
		return nil // checkStoragePacks verifies copies of each pack
	}
	names, err := storagePackNames(f.r)
	if err != nil {
		return nil // checkStoragePacks reports the failure
	}
	ds, err := f.r.packs.Damaged()
	if err != nil {
		return nil // checkStoragePacks reports the failure
	}
	damaged := map[string]bool{}
	for _, d := range ds {
		damaged[d.Name] = true
	}
	var mu sync.Mutex
	var out []fsckPacked
	for _, n := range names {
		if f.ctx.Err() != nil {
			break
		}
		if damaged[n] {
			continue // checkStoragePacks reports it, with the fix
		}
		cnt, err := f.r.packs.VerifyEach(f.ctx, n, func(id objects.OID, o *objects.Object, err error) {
			c := fsckPacked{id: id, pack: n, entry: f.entryOf(o, err), err: err}
			mu.Lock()
			out = append(out, c)
			mu.Unlock()
		})
		c := PackCheck{Pack: n, Objects: cnt, OK: err == nil}
		if err != nil {
			c.Error = err.Error()
		}
		verdicts[n] = c
	}
	slices.SortFunc(out, func(a, b fsckPacked) int {
		if c := enumCompare(a.id, b.id); c != 0 {
			return c
		}
		return strings.Compare(a.pack, b.pack)
	})
	return out
}

// checkStoragePacks reports the verdict on every storage pack (verifying
// those checkObjects did not read), every pack that cannot be read (a
// damaged or missing index: a problem, since referenced objects may be in
// it, with the command that rebuilds the index) and what crashed writers
// left in objects/pack/ as warnings.
func (f *fsck) checkStoragePacks() error {
	if err := f.r.packsErr; err != nil {
		f.problem(Problem{Code: ProblemStoragePack, Path: storagePackRel, Message: err.Error()})
	}
	interrupted := map[string]string{}
	damaged := map[string]bool{}
	if f.r.packs != nil {
		var err error
		if interrupted, err = f.r.packs.InterruptedCommits(); err != nil {
			return err
		}
		ds, err := f.r.packs.Damaged()
		if err != nil {
			// The packs cannot be opened at all: every one is unreadable,
			// which is a problem, never "no damage".
			f.problem(Problem{Code: ProblemStoragePack, Path: storagePackRel, Message: oneLineErr(err)})
		}
		for _, d := range ds {
			damaged[d.Name] = true
			if _, ok := interrupted[d.Name]; ok {
				continue // packGarbageWarnings: the next gc completes it
			}
			ext := ".idx"
			if errors.Is(d.Err, pack.ErrNoIndex) {
				ext = ".pack"
			}
			f.problem(Problem{Code: ProblemStoragePack, Path: storagePackRel + "/" + d.Name + ext,
				Message: fmt.Sprintf("cannot be read: %v; its objects are unreadable until `tine index-pack %s` rebuilds its index", oneLineErr(d.Err), d.Name)})
		}
	}
	names, err := storagePackNames(f.r)
	if err != nil {
		return err
	}
	done := f.packVerdicts
	for _, n := range names {
		if err := f.ctx.Err(); err != nil {
			return err
		}
		if damaged[n] {
			continue
		}
		c, ok := done[n]
		if !ok {
			c = verifyOnePack(f.ctx, f.r, n)
		}
		if !c.OK {
			f.problem(Problem{Code: ProblemStoragePack, Path: storagePackRel + "/" + n + ".pack", Message: c.Error})
		}
	}
	return f.packGarbageWarnings(interrupted)
}

// oneLineErr returns err's text up to its first newline.
func oneLineErr(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// packGarbageWarnings warns about temp files, pack commits a crash
// interrupted (interrupted maps such a pack to its temporary index) and
// gc scratch directories in objects/pack/, and about names no tine writer
// makes. A pack without an index and no interrupted commit is a problem
// (checkStoragePacks), not a warning.
func (f *fsck) packGarbageWarnings(interrupted map[string]string) error {
	ents, indexed, err := readStoragePackDir(f.r.root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		path := storagePackRel + "/" + name
		base, isPack := strings.CutSuffix(name, ".pack")
		h, named := strings.CutPrefix(base, "pack-")
		switch {
		case name == pack.LockFile && e.Type().IsRegular():
			// The flock that orders commits against removals.
		case strings.HasPrefix(name, gcViewPrefix):
			f.warn(Problem{Code: WarnPackGarbage, Path: path, Message: "scratch directory of an interrupted gc"})
		case strings.HasPrefix(name, ".tmp-") && slices.Contains(slices.Collect(maps.Values(interrupted)), name):
		case strings.HasPrefix(name, ".tmp-"):
			f.warn(Problem{Code: WarnTempFile, Path: path, Message: "temporary file of an interrupted pack write"})
		case isPack && named && isLowerHexN(h, 64) && !indexed[base] && interrupted[base] != "":
			f.warn(Problem{Code: WarnPackGarbage, Path: path, Message: "pack write interrupted between its two renames (its index is " + interrupted[base] + "); the next gc or fsck --remove-stale completes it"})
		case isPack && named && isLowerHexN(h, 64) && !indexed[base]:
			// A problem, reported by checkStoragePacks.
		case indexed[strings.TrimSuffix(name, ".idx")] && !isFile(filepath.Join(f.r.root, storagePackRel, strings.TrimSuffix(name, ".idx")+".pack")):
			f.warn(Problem{Code: WarnPackGarbage, Path: path, Message: "index without its pack (a gc stopped while removing an old pack); the next gc or fsck --remove-stale removes it"})
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
	dir := filepath.Join(f.r.root, "objects", pack.Dir)
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

// readStoragePackDir lists objects/pack/ and the base names that have an
// index (so "pack-H" with "pack-H.idx" present). A missing directory gives
// nil entries and no error.
func readStoragePackDir(root string) ([]fs.DirEntry, map[string]bool, error) {
	ents, err := os.ReadDir(filepath.Join(root, "objects", pack.Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	indexed := map[string]bool{}
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".idx"); ok {
			indexed[n] = true
		}
	}
	return ents, indexed, nil
}
