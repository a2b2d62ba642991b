package plumbing

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/refs"
)

// DirName is the repository directory inside a work directory.
const DirName = ".tine"

// EnvDir names the environment variable that, when set, overrides
// repository discovery with an explicit repository path (as GIT_DIR does).
const EnvDir = "TINE_DIR"

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
