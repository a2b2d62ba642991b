package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/refs"
)

// DirName is the repository directory inside a work directory.
const DirName = ".tine"

// EnvDir names the environment variable that, when set, overrides
// repository discovery with an explicit repository path (as GIT_DIR does).
const EnvDir = "TINE_DIR"

// standardDirs are (re)created by init and open (SPEC §2.1), parents first.
var standardDirs = []string{"objects", "refs", "refs/annotations", "refs/heads", "refs/tags", "logs", "packs", "indexes"}

// Repo is an open repository: its directory, hash profile, object store
// (loose objects in front of tine's storage packs, ARCHITECTURE §2) and ref
// store. It holds the pack files open until Close.
type Repo struct {
	root  string
	algo  objects.Algo
	objs  objects.Store // chosen by routeWrites (storage_packs.go)
	loose *loose.Store
	packs *pack.Store // nil when packsErr is set
	// packsErr is why the storage packs could not be opened (only with
	// OpenOptions.AllowDamagedPacks; otherwise opening fails).
	packsErr error
	refs     *refs.Store
	// combined reads loose objects, then packs (nil when packsErr is set);
	// packOptIn is the sha256 storage-packs opt-in (storage_packs.go).
	// routeWrites derives objs from them.
	combined  *reloadingStore
	packOptIn bool
	// notice receives one-line messages about waits (OpenOptions.Notice).
	notice func(string)
	// wrap wraps objs (OpenOptions.WrapObjects).
	wrap func(objects.Store) objects.Store
	// lockMu guards writing: whether this handle holds its share of the
	// writers' lock (repo_lock.go).
	lockMu  sync.Mutex
	writing bool
	// shallow caches the shallow file for reads that miss (shallow_miss.go).
	shallow shallowCache
}

// OpenOptions configures OpenWith and DiscoverWith.
type OpenOptions struct {
	// AllowDamagedPacks opens a repository whose storage pack directory
	// cannot be read at all (objects/pack is a symlink or unreadable): the
	// repository then reads and writes loose objects only and PacksErr says
	// why. fsck and verify-pack use it to report the damage; every other
	// verb refuses such a repository, since packed objects would look
	// missing. One damaged pack never needs it: that pack is skipped and
	// named by any read that misses (pack.Store.Damaged), so verbs
	// that do not need its objects keep working.
	AllowDamagedPacks bool
	// Notice, when set, receives a one-line message when the repository
	// makes the caller wait: a writer behind gc --prune, a gc behind
	// another gc or behind running writers (repo_lock.go).
	Notice func(string)
	// WrapObjects, when set, wraps the object store every verb of this
	// handle reads and writes through (Objects): instrumentation such as
	// counting reads or batches, or injecting faults in tests.
	WrapObjects func(objects.Store) objects.Store
}

// Root returns the absolute repository directory (the .tine directory, or a
// bare directory holding config.json).
func (r *Repo) Root() string { return r.root }

// Algo returns the repository's object hash.
func (r *Repo) Algo() objects.Algo { return r.algo }

// Objects returns the repository's object store: reads try the loose
// objects, then the storage packs, and re-hash every object. Where tine
// may keep objects in storage packs (StoragePacks) PutBatch writes large
// batches as one pack (combined.Store); elsewhere every write is a
// loose file.
func (r *Repo) Objects() objects.Store { return r.objs }

// Loose returns the repository's loose object store (objects/<type>/).
func (r *Repo) Loose() *loose.Store { return r.loose }

// Packs returns the repository's storage packs (objects/pack/), or nil
// when they could not be opened (see PacksErr).
func (r *Repo) Packs() *pack.Store { return r.packs }

// PacksErr returns why the storage packs could not be opened, or nil.
func (r *Repo) PacksErr() error { return r.packsErr }

// Refs returns the repository's ref store.
func (r *Repo) Refs() *refs.Store { return r.refs }

// Close releases the repository's open pack files and its share of the
// writers' lock (repo_lock.go). The repository must not be used
// afterwards.
func (r *Repo) Close() error {
	err := r.unlockWriters()
	if r.packs == nil {
		return err
	}
	return errors.Join(err, r.packs.Close())
}

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

// readConfined reads the regular file rel under root through the one
// bounded reader (fsutil.ReadFileWith), refusing symlinks, hard-linked
// files and anything not regular (ErrNotConfined). It reads at most
// limit+1 bytes, so its caller reports an oversized file with its own
// reason (config.json's, shallow's).
func readConfined(root, rel string, limit int64) ([]byte, error) {
	p, err := confinedPath(root, rel)
	if err != nil {
		return nil, err
	}
	b, err := fsutil.ReadFileWith(p, fsutil.ReadOptions{Limit: limit, KeepOver: true, MaxLinks: 1, NoFollow: true})
	if errors.Is(err, fsutil.ErrNotRegular) || errors.Is(err, fsutil.ErrHardLinked) || errors.Is(err, fsutil.ErrSymlink) {
		return nil, fmt.Errorf("%w: %w", err, ErrNotConfined)
	}
	return b, err
}

// packedPrefixMatches returns the packed objects whose hex digest starts
// with prefix (lowercase hex), for revision lookup by prefix, which must
// find packed objects as well as loose ones. It scans the packs' ids.
func (r *Repo) packedPrefixMatches(ctx context.Context, prefix string) ([]objects.OID, error) {
	if r.packs == nil {
		return nil, nil
	}
	var out []objects.OID
	err := r.packs.List(ctx, func(id objects.OID) error {
		if strings.HasPrefix(id.Hex(), prefix) {
			out = append(out, id)
		}
		return nil
	})
	return out, err
}

// reloadingStore is the repository's object store: the combined store,
// taking the writers' lock before any write (repo_lock.go) and
// re-scanning objects/pack/ once when an object is not found. Another
// process's gc may have moved the object from a loose file into a pack
// this handle has not seen; gc commits the pack before it unlinks the
// loose file, so the re-scan finds it. Packs an old handle still has open
// stay readable after gc deletes them (their files stay open). A listing
// by type re-scans too (ListTypes), as it cannot see what it misses.
type reloadingStore struct {
	*combined.Store
	r *Repo
}

// Put takes the writers' lock, then stores o.
func (s reloadingStore) Put(ctx context.Context, o *objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.Put(ctx, o)
}

// PutBatch takes the writers' lock, then stores objs.
func (s reloadingStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.PutBatch(ctx, objs)
}

// PutBlobFrom takes the writers' lock, then streams a blob into the loose
// store.
func (s reloadingStore) PutBlobFrom(ctx context.Context, rd io.Reader) (objects.OID, error) {
	if err := s.r.LockWriters(ctx); err != nil {
		return objects.OID{}, err
	}
	return s.Loose().PutBlobFrom(ctx, rd)
}

// Get reads id, re-scanning the packs once on a miss. A miss of an oid
// on the shallow boundary also wraps ErrBeyondShallow (classifyMiss).
func (s reloadingStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.Get(ctx, id)
	if errors.Is(err, objects.ErrNotFound) && s.Packs().Reload() == nil {
		o, err = s.Store.Get(ctx, id)
	}
	return o, s.r.classifyMiss(id, err)
}

// GetUnparsed is Get without the json body's parse
// (objects.DecodeEnvelopeUnparsedAs).
func (s reloadingStore) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.GetUnparsed(ctx, id)
	if errors.Is(err, objects.ErrNotFound) && s.Packs().Reload() == nil {
		o, err = s.Store.GetUnparsed(ctx, id)
	}
	return o, s.r.classifyMiss(id, err)
}

// Has reports whether id is stored, re-scanning the packs once on a miss.
func (s reloadingStore) Has(ctx context.Context, id objects.OID) (bool, error) {
	ok, err := s.Store.Has(ctx, id)
	if !ok && err == nil && s.Packs().Reload() == nil {
		return s.Store.Has(ctx, id)
	}
	return ok, err
}

// ListTypes lists the objects of the given types (objects.TypeLister):
// the loose files first, then the packs after a re-scan, so an object
// another process's gc moved from a loose file into a pack this handle
// has not seen is listed all the same (combined.Store.ListTypesReloading).
func (s reloadingStore) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	return s.Store.ListTypesReloading(ctx, types, fn)
}

// lockingLoose is the object store of a repository whose storage packs
// could not be opened: the loose store, taking the writers' lock before any
// write.
type lockingLoose struct {
	*loose.Store
	r *Repo
}

// Put takes the writers' lock, then stores o.
func (s lockingLoose) Put(ctx context.Context, o *objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.Put(ctx, o)
}

// PutBatch takes the writers' lock, then stores objs.
func (s lockingLoose) PutBatch(ctx context.Context, objs []*objects.Object) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.PutBatch(ctx, objs)
}

// PutBlobFrom takes the writers' lock, then streams a blob.
func (s lockingLoose) PutBlobFrom(ctx context.Context, rd io.Reader) (objects.OID, error) {
	if err := s.r.LockWriters(ctx); err != nil {
		return objects.OID{}, err
	}
	return s.Store.PutBlobFrom(ctx, rd)
}

// Loose returns the loose store, for callers that look for it.
func (s lockingLoose) Loose() *loose.Store { return s.Store }

// Get reads id; a miss on the shallow boundary is marked (classifyMiss).
func (s lockingLoose) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.Get(ctx, id)
	return o, s.r.classifyMiss(id, err)
}

// GetUnparsed is Get without the json body's parse.
func (s lockingLoose) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.Store.GetUnparsed(ctx, id)
	return o, s.r.classifyMiss(id, err)
}

// PutBatchBlocks takes the writers' lock, then stores objs, writing the
// raw blocks they arrived in as they are where it can
// (combined.Store.PutBatchBlocks).
func (s reloadingStore) PutBatchBlocks(ctx context.Context, objs []*objects.Object, blocks []pack.RawBlock) error {
	if err := s.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.Store.PutBatchBlocks(ctx, objs, blocks)
}
