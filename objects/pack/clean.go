package pack

import (
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// RemoveGarbage clears what crashed pack writers and gcs left in the
// store's directory and returns how many files it dealt with. An index
// whose pack file is gone (a gc stopped between deleting an old pack and
// its index) indexes nothing and is deleted. A pack file without
// its index is never deleted: its objects may be referenced (an index can
// be lost), and `tine index-pack` can always rebuild its index. Commit
// renames the pack before its index, after fsyncing both, so a crash
// between the renames leaves the index in a temporary file; such a commit
// is completed (the temporary index, validated against the pack, is
// renamed into place). Other temporary files are unfinished writes, never
// renamed into place, so nothing refers to them: they are deleted. Only
// files modified before cutoff are touched, so a writer still running is
// never disturbed; pass a cutoff well in the past (an hour before the
// caller's clock, say), or the present when no writer can be running.
// It holds the directory lock exclusive throughout (lock.go), so pack
// commits wait for it.
func (s *Store) RemoveGarbage(ctx context.Context, cutoff time.Time) (int, error) {
	if _, err := os.Lstat(s.dir); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	// Exclusive from the listing to the last removal: no commit is then
	// between its renames, so an index listed without its pack is no
	// writer's, and none can be committed under the same name before it
	// is deleted (lock.go).
	release, err := lockDir(s.dir, true)
	if err != nil {
		return 0, err
	}
	defer release()
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, err
	}
	pending, err := s.InterruptedCommits()
	if err != nil {
		return 0, err
	}
	finishing := map[string]string{} // temp file -> pack
	for pack, tmp := range pending {
		finishing[tmp] = pack
	}
	removed := 0
	present := map[string]bool{}
	for _, e := range ents {
		present[e.Name()] = true
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		name := e.Name()
		if n, ext, ok := spFileName(name); ok && ext == ".idx" && !present[n+".pack"] && e.Type().IsRegular() {
			// An index whose pack gc removed before a crash (gc deletes
			// the pack file first; writers rename the pack first): it
			// indexes nothing that exists, whatever its age.
			if removeWindowHook != nil {
				removeWindowHook(n)
			}
			err := os.Remove(filepath.Join(s.dir, name))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
			removed++
			continue
		}
		if !e.Type().IsRegular() || !strings.HasPrefix(name, objects.TempPrefix) {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, err
		}
		if !fi.ModTime().Before(cutoff) {
			continue
		}
		path := filepath.Join(s.dir, name)
		if pack, ok := finishing[name]; ok {
			err = os.Rename(path, filepath.Join(s.dir, pack+".idx"))
			if err == nil {
				err = fsutil.SyncDir(s.dir)
			}
		} else {
			err = os.Remove(path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// InterruptedCommits maps each pack file without an index whose commit was
// interrupted between its two renames to the temporary index (a file name
// in the store's directory) that completes it: an index that validates
// and names the pack, whose ends match it.
func (s *Store) InterruptedCommits() (map[string]string, error) {
	_, orphans, err := s.scan()
	if err != nil || len(orphans) == 0 {
		return nil, err
	}
	want := make(map[string]bool, len(orphans))
	for _, n := range orphans {
		want[n] = true
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), objects.TempPrefix+"idx-") {
			continue
		}
		data, err := readSPIndexFile(filepath.Join(s.dir, e.Name()))
		if err != nil {
			continue
		}
		idx, err := parseSPIndex(data, s.algo)
		if err != nil {
			continue
		}
		name := "pack-" + hex.EncodeToString(idx.packSum[:])
		if !want[name] || out[name] != "" {
			continue
		}
		f, size, err := openPlain(filepath.Join(s.dir, name+".pack"))
		if err != nil {
			continue
		}
		p := &spPack{name: name, algo: s.algo, idx: idx, f: f, size: size}
		if p.checkEnds() == nil {
			out[name] = e.Name()
		}
		f.Close()
	}
	return out, nil
}
