package gate

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// MaxWatchedFiles bounds how many files one constraint's watch globs may
// match; more is an error rather than an unbounded digest walk.
const MaxWatchedFiles = 200000

// excludedParts are path parts never watched (SPEC §2 matching_files),
// plus tine's own repository directory.
var excludedParts = map[string]bool{
	".git": true, ".tine": true, ".constraintloop": true, ".mypy_cache": true, ".pytest_cache": true,
	".ruff_cache": true, ".tox": true, ".venv": true, "__pycache__": true, "build": true, "dist": true,
	"node_modules": true,
}

// MatchGlob reports whether the project-relative POSIX path rel matches
// the watch glob pattern. "**" as a whole part matches zero or more
// directories (and, as the last part, any file below); other parts use
// path.Match, where "*" does not cross "/" and dot files are not special
// (pathlib's glob, SPEC §2).
func MatchGlob(pattern, rel string) bool {
	return matchParts(strings.Split(pattern, "/"), strings.Split(rel, "/"))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(name) > 0
			}
			for i := 0; i <= len(name); i++ {
				if matchParts(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// MatchingFiles returns the regular files under root that match any of
// globs, as sorted, de-duplicated, project-relative POSIX paths (SPEC §2
// matching_files). Excluded directories are skipped; symbolic links are
// kept only when they resolve to a regular file inside root, and linked
// directories are not followed.
func MatchingFiles(root string, globs []string) ([]string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("gate: watch root: %w", err)
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, werr error) error {
		if p == root {
			return werr
		}
		if excludedParts[d.Name()] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if werr != nil {
			// An unreadable directory contributes nothing; its files
			// cannot be read either.
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !slices.ContainsFunc(globs, func(g string) bool { return MatchGlob(g, rel) }) {
			return nil
		}
		if !d.Type().IsRegular() && !linkedRegularInside(p, realRoot, d) {
			return nil
		}
		if len(out) >= MaxWatchedFiles {
			return fmt.Errorf("gate: watch globs match more than %d files", MaxWatchedFiles)
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// linkedRegularInside reports whether p is a symbolic link to a regular
// file whose resolved path stays inside realRoot (no symlink escape).
func linkedRegularInside(p, realRoot string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(realRoot, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	info, err := os.Stat(target)
	return err == nil && info.Mode().IsRegular()
}
