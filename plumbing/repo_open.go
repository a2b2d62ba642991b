package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/refs"
)

// standardDirs are (re)created by init and open (SPEC §2.1), parents first.
var standardDirs = []string{"objects", "refs", "refs/annotations", "refs/heads", "refs/tags", "logs", "packs", "indexes"}

// Open opens the repository at path: a .tine directory, a bare directory
// holding config.json, or a work directory containing .tine ("" is the
// current directory). It validates config.json, refuses symlinked or
// misplaced repository entries and (re)creates missing standard directories.
func Open(path string) (*Repo, error) { return OpenWith(path, OpenOptions{}) }

// OpenWith is Open with options.
func OpenWith(path string, opt OpenOptions) (*Repo, error) {
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
			return nil, fmt.Errorf("%s: %w: run tine init", abs, ErrNotRepository)
		}
	}
	return openRootWith(root, opt)
}

// Discover finds the repository for a command run in start: the TINE_DIR
// environment variable wins; otherwise start and each parent is searched
// for a .tine directory holding config.json.
func Discover(start string) (*Repo, error) { return DiscoverWith(start, OpenOptions{}) }

// DiscoverWith is Discover with options.
func DiscoverWith(start string, opt OpenOptions) (*Repo, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		return OpenWith(dir, opt)
	}
	if start == "" {
		start = "."
	}
	abs, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	dir := abs
	for {
		if filepath.Base(dir) == DirName && isFile(filepath.Join(dir, "config.json")) {
			return openRootWith(dir, opt)
		}
		if isFile(filepath.Join(dir, DirName, "config.json")) {
			return openRootWith(filepath.Join(dir, DirName), opt)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("%s: %w (or any parent): run tine init", abs, ErrNotRepository)
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
func openRoot(root string) (*Repo, error) { return openRootWith(root, OpenOptions{}) }

// openRootWith opens the repository whose directory is root.
func openRootWith(root string, opt OpenOptions) (*Repo, error) {
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
	loose, err := loose.Open(filepath.Join(root, "objects"), algo)
	if err != nil {
		return nil, fmt.Errorf("open objects of %s: %w", root, err)
	}
	optIn, err := readPackOptIn(root)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	r := &Repo{root: root, algo: algo, loose: loose, packOptIn: optIn, notice: opt.Notice, wrap: opt.WrapObjects}
	packs, err := pack.Open(filepath.Join(root, "objects", pack.Dir), algo)
	switch {
	case err != nil && !opt.AllowDamagedPacks:
		return nil, fmt.Errorf("open storage packs of %s (tine fsck or tine verify-pack reports the damage): %w", root, err)
	case err != nil:
		r.packsErr = err
	default:
		combined, err := combined.New(loose, packs)
		if err != nil {
			packs.Close()
			return nil, err
		}
		r.combined, r.packs = &reloadingStore{combined, r}, packs
	}
	r.routeWrites()
	r.refs = refs.Open(root, algo, r.objs, refs.WithBeforeUpdate(r.LockWriters))
	return r, nil
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
