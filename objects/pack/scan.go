package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// scan lists the pack names whose index is in the directory, and those of
// pack files without an index (orphans).
func (s *Store) scan() (names, orphans []string, err error) {
	if scanHook != nil {
		scanHook()
	}
	if ok, err := s.checkDir(); !ok || err != nil {
		return nil, nil, err
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("storage packs: %w", err)
	}
	indexed := map[string]bool{}
	var packs []string
	for _, e := range ents {
		n, ext, ok := spFileName(e.Name())
		switch {
		case !ok:
		case ext == ".idx":
			names = append(names, n)
			indexed[n] = true
		default:
			packs = append(packs, n)
		}
	}
	for _, n := range packs {
		if !indexed[n] {
			orphans = append(orphans, n)
		}
	}
	return names, orphans, nil
}

// scanHook, when set by a test, runs at the start of every scan.
var scanHook func()

// checkDir reports whether the directory exists, refusing anything but a
// directory (a symlink among them).
func (s *Store) checkDir() (bool, error) {
	fi, err := os.Lstat(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage packs: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("storage packs: %s is not a directory (symlinks are refused): %w", s.dir, objects.ErrUnsafeFile)
	}
	return true, nil
}

// spFileName splits a storage pack file name "pack-<64 hex>.idx|.pack"
// into the pack's name and the extension.
func spFileName(file string) (name, ext string, ok bool) {
	for _, ext := range []string{".idx", ".pack"} {
		if n, ok := strings.CutSuffix(file, ext); ok && strings.HasPrefix(n, "pack-") && spIsHex(n[len("pack-"):], 64) {
			return n, ext, true
		}
	}
	return "", "", false
}

// newestFirst orders packs by their index's modification time, newest
// first, then by name, so the order is deterministic.
func newestFirst(dir string, ps []*spPack) {
	mtime := make(map[string]int64, len(ps))
	for _, p := range ps {
		if fi, err := os.Lstat(filepath.Join(dir, p.name+".idx")); err == nil {
			mtime[p.name] = fi.ModTime().UnixNano()
		}
	}
	slices.SortFunc(ps, func(a, b *spPack) int {
		if c := mtime[b.name] - mtime[a.name]; c != 0 {
			return min(max(int(c), -1), 1)
		}
		return strings.Compare(b.name, a.name)
	})
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// spIsHex reports whether s is n lowercase hex digits.
func spIsHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
