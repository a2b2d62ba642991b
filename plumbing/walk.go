package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
)

// looseFile is one loose object file found by walkLoose.
type looseFile struct {
	ID   objects.OID
	Path string
	Size int64
}

// strayFile is a name under objects/<type>/ that is not a loose object
// (SPEC §2.1: skipped by readers, so only worth a warning).
type strayFile struct {
	Path string
	Temp bool // a writer's temporary file (".tmp-" prefix)
	Info fs.FileInfo
	Err  error // set when the entry is unsafe (symlink, not regular)
}

// walkLoose enumerates the loose objects of r in SPEC order (type, then
// hex), calling obj for each (with its file size when sizes is set, which
// costs a stat per file) and stray for every other name inside the type
// and fan-out directories. Directories other than the five type
// directories under objects/ are left alone: they are reserved (tine's
// storage packs live there) and OpenTine ignores them.
func walkLoose(ctx context.Context, r *Repo, sizes bool, obj func(looseFile) error, stray func(strayFile) error) error {
	base := filepath.Join(r.root, "objects")
	for _, t := range objects.Types {
		typeDir := filepath.Join(base, string(t))
		fans, err := readDirChecked(typeDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, fan := range fans {
			fanPath := filepath.Join(typeDir, fan.Name())
			if !fan.IsDir() || len(fan.Name()) != 2 || !isLowerHexN(fan.Name(), 2) {
				if err := reportStray(fanPath, fan, stray); err != nil {
					return err
				}
				continue
			}
			files, err := readDirChecked(fanPath)
			if err != nil {
				return err
			}
			for _, f := range files {
				p := filepath.Join(fanPath, f.Name())
				if len(f.Name()) != 62 || !isLowerHexN(f.Name(), 62) {
					if err := reportStray(p, f, stray); err != nil {
						return err
					}
					continue
				}
				id, err := objects.ParseOIDFor(r.algo, string(t)+":"+string(r.algo)+":"+fan.Name()+f.Name())
				if err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
				lf := looseFile{ID: id, Path: p}
				if sizes {
					if info, err := f.Info(); err == nil {
						lf.Size = info.Size()
					}
				}
				if err := obj(lf); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDirChecked lists a directory that must not be a symlink.
func readDirChecked(dir string) ([]fs.DirEntry, error) {
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (%s): %w", dir, st.Mode().Type(), ErrNotConfined)
	}
	return os.ReadDir(dir)
}

// reportStray describes a stray entry to fn.
func reportStray(p string, e fs.DirEntry, fn func(strayFile) error) error {
	s := strayFile{Path: p, Temp: len(e.Name()) > 5 && e.Name()[:5] == ".tmp-"}
	s.Info, s.Err = e.Info()
	if s.Err == nil && !s.Info.Mode().IsRegular() && !s.Info.IsDir() {
		s.Err = fmt.Errorf("%s is a %s: %w", p, s.Info.Mode().Type(), ErrNotConfined)
	}
	return fn(s)
}

// isLowerHexN reports whether s is n lowercase hex digits.
func isLowerHexN(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
