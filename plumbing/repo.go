package plumbing

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// DirName is the repository directory inside a work directory.
const DirName = ".tine"

// EnvDir names the environment variable that, when set, overrides
// repository discovery with an explicit repository path (as GIT_DIR does).
const EnvDir = "TINE_DIR"

// standardDirs are (re)created by init and open (SPEC §2.1), parents first.
var standardDirs = []string{"objects", "refs", "refs/annotations", "refs/heads", "refs/tags", "logs", "packs", "indexes"}

// Repo is an open repository: its directory, hash profile, loose object
// store and ref store. It holds no open files, so Close only marks it done.
type Repo struct {
	root string
	algo objects.Algo
	objs *objects.LooseStore
	refs *refs.Store
}

// Root returns the absolute repository directory (the .tine directory, or a
// bare directory holding config.json).
func (r *Repo) Root() string { return r.root }

// Algo returns the repository's object hash.
func (r *Repo) Algo() objects.Algo { return r.algo }

// Objects returns the repository's object store.
func (r *Repo) Objects() objects.Store { return r.objs }

// Refs returns the repository's ref store.
func (r *Repo) Refs() *refs.Store { return r.refs }

// Close releases the repository. It exists so callers need not change when
// the handle starts holding resources (pack files, indexes).
func (r *Repo) Close() error { return nil }

// Open opens the repository at path: a .tine directory, a bare directory
// holding config.json, or a work directory containing .tine ("" is the
// current directory). It validates config.json, refuses symlinked or
// misplaced repository entries and (re)creates missing standard directories.
func Open(path string) (*Repo, error) {
	if path == "" {
		path = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	root := abs
	if _, err := os.Lstat(filepath.Join(abs, "config.json")); errors.Is(err, fs.ErrNotExist) {
		root = filepath.Join(abs, DirName)
		if _, err := os.Lstat(filepath.Join(root, "config.json")); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", abs, ErrNotRepository)
		}
	}
	return openRoot(root)
}

// Discover finds the repository for a command run in start: the TINE_DIR
// environment variable wins; otherwise start and each parent is searched
// for a .tine directory holding config.json.
func Discover(start string) (*Repo, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		return Open(dir)
	}
	if start == "" {
		start = "."
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	for {
		if filepath.Base(dir) == DirName && isFile(filepath.Join(dir, "config.json")) {
			return openRoot(dir)
		}
		if isFile(filepath.Join(dir, DirName, "config.json")) {
			return openRoot(filepath.Join(dir, DirName))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("%s: %w", start, ErrNotRepository)
		}
		dir = parent
	}
}

// isFile reports whether p exists (without following a final symlink).
func isFile(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// openRoot opens the repository whose directory is root.
func openRoot(root string) (*Repo, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open repository %s: not a directory: %w", root, ErrNotRepository)
	}
	b, err := readConfined(root, "config.json", MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	algo, err := ValidateConfig(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, "config.json"), err)
	}
	if err := ensureDirs(root); err != nil {
		return nil, err
	}
	objs, err := objects.OpenLooseStore(filepath.Join(root, "objects"), algo)
	if err != nil {
		return nil, fmt.Errorf("open objects of %s: %w", root, err)
	}
	return &Repo{root: root, algo: algo, objs: objs, refs: refs.Open(root, algo, objs)}, nil
}

// ensureDirs (re)creates the standard directories and refuses any that is
// a symlink or not a directory (SPEC §2.1 path confinement).
func ensureDirs(root string) error {
	for _, d := range standardDirs {
		p := filepath.Join(root, filepath.FromSlash(d))
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", p, err)
			}
		case err != nil:
			return fmt.Errorf("inspect %s: %w", p, err)
		case !st.IsDir():
			return fmt.Errorf("%s is not a directory (%s): %w", p, st.Mode().Type(), ErrNotConfined)
		}
	}
	return nil
}

// readConfined reads the regular file rel under root, refusing symlinks,
// hard-linked files and anything over limit bytes, which it never allocates.
func readConfined(root, rel string, limit int64) ([]byte, error) {
	p, err := confinedPath(root, rel)
	if err != nil {
		return nil, err
	}
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): %w", p, st.Mode().Type(), ErrNotConfined)
	}
	if linkCount(st) > 1 {
		return nil, fmt.Errorf("%s is hard-linked: %w", p, ErrNotConfined)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return b, nil
}
