package pack

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/tinehq/tine/objects"
)

// Store reads the storage packs of one directory (objects/pack) as one
// store: a lookup searches every pack, newest first, and every object read is
// re-hashed. It writes whole packs (WritePack), never single objects; see
// objects/combined for a Store that adds loose writes. It is safe for
// concurrent use; packs written by other processes appear after Reload.
type Store struct {
	dir  string
	algo objects.Algo
	mu   sync.Mutex // serialises Reload, installs and Close
	// packs is the search order, newest first; the slice is replaced, never
	// modified, so readers load it without a lock.
	packs atomic.Pointer[[]*spPack]
	// retired packs vanished from the directory (a gc or a merge removed
	// them); their files stay open while a reader may still hold them:
	// until Close, or until a Reload finds them retired for retireGrace
	// with no walk holding them, so a process that merges packs as it
	// appends does not collect open files.
	retired []retiredPack
	// cache holds recently decoded blocks of the open packs (cache.go).
	cache *spBlockCache
	// dcache holds envelopes rebuilt from deltas (delta_read.go).
	dcache *spDeltaCache
	// damaged holds the packs the last Reload could not open, by name
	// (damage.go); replaced, never modified.
	damaged atomic.Pointer[map[string]error]
	// pending is set by Open until the first use opens the listed packs
	// (ensureOpen): mapping and checking every index costs a short verb
	// that reads only refs or loose objects (rev-parse of a ref,
	// update-ref) a few page faults per pack (issue 13, process start).
	pending atomic.Bool
	// listed holds the names Open's scan found, for the first use to open
	// instead of listing the directory again (a second scan was about 1%
	// of a `log -n 20` or `update-ref` process); nil when that scan found
	// an orphan (scanSettled must confirm it), or once used. Guarded by mu.
	listed []string
}

// Open opens the storage packs in dir for hash profile a. A
// missing dir is an empty store (WritePack creates it). A pack that cannot
// be opened (a damaged index or trailer, a pack file without its index) is
// skipped and remembered (Damaged), so the other packs stay readable, and a
// lookup that misses names it (damage.go): damage stays local and is
// never silently ignored. Only a directory that cannot be read fails.
//
// Open checks and lists the directory; the packs it listed are opened on
// the store's first use (the directory is checked again, not listed
// again: a pack committed in between is seen after a Reload, which the
// repository's store makes on every miss, as when Open opened every pack
// at once), and a failure then (the directory replaced or unreadable
// since, or packs vanishing under every listing) is the error of every
// call that can return one, retried on each.
func Open(dir string, a objects.Algo) (*Store, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("open storage packs %s: %w: %q", dir, objects.ErrUnknownAlgo, a)
	}
	s := &Store{dir: filepath.Clean(dir), algo: a, cache: newSPBlockCache(spCacheStart, spCacheBytes), dcache: newSPDeltaCache()}
	s.packs.Store(&[]*spPack{})
	s.damaged.Store(&map[string]error{})
	names, orphans, err := s.scan()
	if err != nil {
		s.Close()
		return nil, err
	}
	if len(orphans) == 0 {
		s.listed = append(make([]string, 0, len(names)), names...)
	}
	s.pending.Store(true)
	return s, nil
}

// ensureOpen opens the listed packs if Open left them for the first use.
func (s *Store) ensureOpen() error {
	if !s.pending.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pending.Load() {
		return nil
	}
	// Open's listing stands for the first use, as when Open opened every
	// pack at once: a pack merged away since is listed again (Reload), and
	// one committed since is found by the reload a miss makes.
	return s.reloadFrom(s.listed)
}

// current returns the search order, newest first, opening the packs on
// first use; a failure to open them is returned, never taken for an empty
// store.
func (s *Store) current() ([]*spPack, error) {
	if err := s.ensureOpen(); err != nil {
		return nil, err
	}
	return *s.packs.Load(), nil
}

// Algo returns the store's hash profile.
func (s *Store) Algo() objects.Algo { return s.algo }

// Dir returns the directory the store reads.
func (s *Store) Dir() string { return s.dir }

// Packs returns the names ("pack-<hex>") of the open packs in search order,
// after verifying their indexes (a damaged one moves to Damaged). It fails
// when the packs Open listed cannot be opened on this first use (Open), so
// no caller takes an unreadable directory for one without packs.
func (s *Store) Packs() ([]string, error) {
	ps, err := s.trusted()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return names, nil
}

// Close closes every pack file. The store must not be used afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	all := append([]*spPack(nil), *s.packs.Load()...)
	for _, r := range s.retired {
		all = append(all, r.p)
	}
	for _, p := range all {
		errs = append(errs, p.close())
		s.cache.forget(p)
		s.dcache.forget(p)
	}
	errs = append(errs, s.cache.close())
	s.packs.Store(&[]*spPack{})
	s.pending.Store(false)
	s.retired = nil
	return errors.Join(errs...)
}
