package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// isLockName reports whether a file name is a guard (<ref>.lock), a
// staging file (<ref>..lock) or an atomic-write temporary: files of writers
// at work, never refs.
func isLockName(base string) bool {
	return strings.HasSuffix(base, guardSuffix) || strings.HasPrefix(base, ".tmp-")
}

// refFiles returns the slash paths, relative to refs/, of every file under
// refs/ except lock names, sorted as strings.
func (s *Store) refFiles() ([]string, error) {
	out, err := walkFiles(filepath.Join(s.root, "refs"), isLockName)
	if err != nil {
		return nil, fmt.Errorf("refs: list: %w", err)
	}
	return out, nil
}

// walkFiles returns the sorted slash paths, relative to dir, of the files
// below dir whose base name skip does not reject; a missing dir has none.
func walkFiles(dir string, skip func(base string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || (skip != nil && skip(d.Name())) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// List calls fn with every ref whose normalized name starts with prefix
// (e.g. "heads/", "refs/tags/", or "" for all), in byte order of the name
// like git for-each-ref. Guards, staging files and files whose names are
// not legal refs are skipped (tine fsck reports the latter); a ref file that
// cannot be read or parsed is an error naming it.
func (s *Store) List(ctx context.Context, prefix string, fn func(name string, id objects.OID) error) error {
	return s.ListTolerant(ctx, prefix, fn, func(_ string, err error) error { return err })
}

// ListTolerant is List for listings that must show every readable ref: a
// ref file that cannot be read or parsed (a symlink, a directory entry
// that is not a regular file, bad content) is passed to bad with its name
// and the error, and the walk goes on unless bad returns an error. Callers
// that decide from the whole set of refs, such as gc, use List.
func (s *Store) ListTolerant(ctx context.Context, prefix string, fn func(name string, id objects.OID) error, bad func(name string, err error) error) error {
	prefix = strings.TrimPrefix(prefix, "refs/")
	if err := s.Recover(ctx); err != nil {
		return err
	}
	names, err := s.refFiles()
	if err != nil {
		return err
	}
	for _, name := range names {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if norm, err := NormalizeName(name); err != nil || norm != name {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		id, err := s.readRef(name)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the walk
		}
		if err != nil {
			err = bad(name, err)
		} else {
			err = fn(name, id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
