package objects

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RemoveGarbage deletes what crashed pack writers leave in the store's
// directory and returns how many files it removed: temporary files, and
// packs without an index (a crash between the two renames of Commit). Only
// files modified before cutoff are touched, so a writer still running is
// never disturbed; pass a cutoff well in the past (an hour before the
// caller's clock, say).
func (s *PackStore) RemoveGarbage(ctx context.Context, cutoff time.Time) (int, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	indexed := make(map[string]bool)
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".idx"); ok {
			indexed[n] = true
		}
	}
	removed := 0
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		name := e.Name()
		orphan := false
		if n, ok := strings.CutSuffix(name, ".pack"); ok && strings.HasPrefix(n, "pack-") && !indexed[n] {
			orphan = true
		}
		if !e.Type().IsRegular() || !(orphan || strings.HasPrefix(name, tmpPrefix)) {
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
		if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed++
	}
	return removed, nil
}
