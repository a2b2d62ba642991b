package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// InitResult is what `tine init` reports.
type InitResult struct {
	// Path is the absolute repository directory created (DIR/.tine).
	Path string `json:"path"`
	// ObjectFormat is the repository's object hash ("blake3" or "sha256").
	ObjectFormat objects.Algo `json:"object_format"`
	// StoragePacks reports whether tine may keep objects in storage packs
	// (Repo.StoragePacks): blake3, or sha256 with the opt-in.
	StoragePacks bool `json:"storage_packs"`
}

// Init creates a repository in dir/.tine ("" is the current directory)
// using algo (empty means blake3): config.json and the standard directories
// of SPEC §2.1. An existing repository is refused with ErrRepositoryExists;
// a .tine directory without config.json (an interrupted init) is completed.
func Init(dir string, algo objects.Algo) (*Repo, *InitResult, error) {
	if algo == "" {
		algo = objects.BLAKE3
	}
	if !algo.Valid() {
		return nil, nil, fmt.Errorf("init: unknown object format %q (use blake3 or sha256)", algo)
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	root := filepath.Join(abs, DirName)
	// The work directory itself may be reached through a symlink (the
	// user's choice); only entries inside the repository are confined.
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		if err := fsutil.MkdirAllSync(abs, 0o755); err != nil {
			return nil, nil, fmt.Errorf("init: create %s: %w", abs, err)
		}
	}
	st, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(root, 0o755); err != nil {
			return nil, nil, fmt.Errorf("init: %w", err)
		}
	case err != nil:
		return nil, nil, fmt.Errorf("init: %w", err)
	case !st.IsDir():
		return nil, nil, fmt.Errorf("init: %s is not a directory (%s): %w", root, st.Mode().Type(), ErrNotConfined)
	}
	cfg := filepath.Join(root, "config.json")
	if _, err := os.Lstat(cfg); err == nil {
		return nil, nil, fmt.Errorf("init: %s: %w", root, ErrRepositoryExists)
	}
	// The directories come first and config.json last: config.json is what
	// makes the directory a repository, so a crash never leaves a
	// "repository" missing its layout.
	if err := ensureDirs(root); err != nil {
		return nil, nil, fmt.Errorf("init: %w", err)
	}
	if err := fsutil.SyncDir(root); err != nil {
		return nil, nil, fmt.Errorf("init: %w", err)
	}
	if err := fsutil.WriteFileAtomic(cfg, ConfigBytes(algo), 0o644); err != nil {
		return nil, nil, fmt.Errorf("init: write %s: %w", cfg, err)
	}
	if err := fsutil.SyncDir(abs); err != nil {
		return nil, nil, fmt.Errorf("init: %w", err)
	}
	r, err := openRoot(root)
	if err != nil {
		return nil, nil, err
	}
	return r, &InitResult{Path: root, ObjectFormat: algo, StoragePacks: r.StoragePacks()}, nil
}
