package loose

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
)

// List calls fn for every object file in enumeration order (SPEC §2.1:
// sorted at every level; type directories sort in oid order). Stray names
// are skipped, not errors: a directory that is not an object type, a
// fan-out name that is not 2 lowercase hex digits, a file name that is not
// 62 lowercase hex digits (temporary files included), and symlinked
// directories. A non-directory entry under an object name is listed, so that
// Get (and fsck through it) reports it as unsafe rather than it being
// silently ignored.
func (s *Store) List(ctx context.Context, fn func(objects.OID) error) error {
	return s.ListTypes(ctx, objects.Types, fn)
}

var _ objects.TypeLister = (*Store)(nil)

// ListTypes is List restricted to the given types (objects.TypeLister):
// only their directories are read.
func (s *Store) ListTypes(ctx context.Context, want []objects.Type, fn func(objects.OID) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	types, err := readDirIfExists(s.dir)
	if err != nil {
		return err
	}
	for _, te := range types {
		t := objects.Type(te.Name())
		if !te.IsDir() || !t.Valid() || !slices.Contains(want, t) {
			continue
		}
		typeDir := filepath.Join(s.dir, te.Name())
		fans, err := readDirIfExists(typeDir)
		if err != nil {
			return err
		}
		for _, fe := range fans {
			if !fe.IsDir() || !isLowerHex(fe.Name(), 2) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			files, err := readDirIfExists(filepath.Join(typeDir, fe.Name()))
			if err != nil {
				return err
			}
			for _, e := range files {
				if e.IsDir() || !isLowerHex(e.Name(), 62) {
					continue
				}
				id := objects.OID{Type: t, Algo: s.algo}
				hex.Decode(id.Digest[:], []byte(fe.Name()+e.Name()))
				if err := fn(id); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readDirIfExists lists dir sorted by name; a directory removed meanwhile
// lists as empty.
func readDirIfExists(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list objects: %w", err)
	}
	return entries, nil
}

// isLowerHex reports whether name is exactly n lowercase hex digits: the
// only spelling of an oid's digest (SPEC §1.3).
func isLowerHex(name string, n int) bool {
	if len(name) != n {
		return false
	}
	for i := 0; i < n; i++ {
		c := name[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// RemoveStaleTemp deletes the temporary files a crashed writer left in the
// store whose modification time is before cutoff, and returns how many it
// removed. Pass a cutoff well in the past (an hour, say, before the
// caller's clock) so files of writers still running are never touched:
// removing one of those would fail that writer's rename, though never
// corrupt an object. Only regular files named with the temporary prefix in
// type and fan-out directories are considered.
func (s *Store) RemoveStaleTemp(ctx context.Context, cutoff time.Time) (int, error) {
	removed := 0
	sweep := func(dir string, entries []fs.DirEntry) error {
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), objects.TempPrefix) || !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if !fi.ModTime().Before(cutoff) {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			removed++
		}
		return nil
	}
	for _, t := range objects.Types {
		typeDir := filepath.Join(s.dir, string(t))
		if err := s.checkDir(typeDir, false); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return removed, err
		}
		fans, err := readDirIfExists(typeDir)
		if err != nil {
			return removed, err
		}
		if err := sweep(typeDir, fans); err != nil {
			return removed, err
		}
		for _, fe := range fans {
			if err := ctx.Err(); err != nil {
				return removed, err
			}
			if !fe.IsDir() || !isLowerHex(fe.Name(), 2) {
				continue
			}
			fanDir := filepath.Join(typeDir, fe.Name())
			files, err := readDirIfExists(fanDir)
			if err != nil {
				return removed, err
			}
			if err := sweep(fanDir, files); err != nil {
				return removed, err
			}
		}
	}
	return removed, nil
}
