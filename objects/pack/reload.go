package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// Reload opens packs that appeared in the directory since the last scan
// (they are searched first, newest index first), forgets packs whose
// index disappeared and re-assesses the damaged ones: a pack that cannot
// be opened is skipped and remembered (Damaged), not an error.
//
// A listed pack can vanish before it is opened: another process merged it
// (MergeSmall) or gc consolidated it, and removed its files. Both commit
// the pack that replaces it before removing anything, but it may have
// been committed after this listing, so the directory is listed again
// (spListTries at most): skipping the vanished pack without a new
// listing would hide its objects.
func (s *Store) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reloadLocked()
}

// reloadLocked is Reload with s.mu held; it also opens the packs Open
// left for the first use.
func (s *Store) reloadLocked() error { return s.reloadFrom(nil) }

// reloadFrom is reloadLocked taking names, when not nil, as the first
// listing instead of scanning the directory (Open's, on the first use).
func (s *Store) reloadFrom(names []string) error {
	s.listed = nil
	old := *s.packs.Load()
	opened := make(map[string]*spPack, len(old))
	known := make(map[string]bool, len(old))
	for _, p := range old {
		opened[p.name], known[p.name] = p, true
	}
	wasDamaged := *s.damaged.Load()
	seen := map[string]bool{} // names that vanished in an earlier listing
	first := names
	var damaged map[string]error
	for try := 1; ; try++ {
		var vanished []string
		var err error
		names, damaged, vanished, err = s.list(opened, wasDamaged, first)
		first = nil
		again := false
		for _, n := range vanished {
			// A name that vanishes again is left over (gc removed the
			// pack, a kill kept its index): one more listing is enough.
			again = again || !seen[n]
			seen[n] = true
		}
		if err == nil && again && try == spListTries {
			err = fmt.Errorf("storage packs %s: %d listings: %w", s.dir, try, ErrPacksChanging)
		}
		if err != nil {
			closeUnlisted(opened, known, nil)
			return err
		}
		if !again {
			break
		}
	}
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	closeUnlisted(opened, known, present)
	var fresh []*spPack
	for _, n := range names {
		if !known[n] {
			fresh = append(fresh, opened[n])
		}
	}
	newestFirst(s.dir, fresh)
	next := fresh
	for _, p := range old {
		if present[p.name] {
			next = append(next, p)
		} else {
			s.retired = append(s.retired, retiredPack{p: p, at: time.Now()})
			s.cache.forget(p)
			s.dcache.forget(p)
		}
	}
	s.closeRetired()
	s.packs.Store(&next)
	s.damaged.Store(&damaged)
	s.pending.Store(false)
	return nil
}

// spListTries bounds the listings of one Reload while packs vanish.
const spListTries = 8

// openWindowHook, when set by a test, runs before a pack is opened by
// name after it was listed or committed: the window in which another
// process may merge the pack away.
var openWindowHook func(name string)

// list scans the directory once (unless given its names: a listing
// without orphans) and opens the listed packs that opened does not hold,
// adding them to it. It returns the listed names, the packs that cannot
// be opened, and the names whose files vanished before they could be
// opened.
func (s *Store) list(opened map[string]*spPack, wasDamaged map[string]error, given []string) (names []string, damaged map[string]error, vanished []string, err error) {
	var orphans []string
	if given != nil {
		// The directory is checked as a scan checks it: one replaced
		// since by a symlink is refused, one removed is listed again.
		ok, err := s.checkDir()
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			given = nil
		}
	}
	if names = given; names == nil {
		if names, orphans, err = s.scanSettled(); err != nil {
			return nil, nil, nil, err
		}
	}
	damaged = make(map[string]error, len(orphans))
	for _, n := range orphans {
		damaged[n] = fmt.Errorf("%s: %w", filepath.Join(s.dir, n+".pack"), ErrNoIndex)
	}
	listed := names[:0]
	for _, n := range names {
		if opened[n] != nil {
			listed = append(listed, n)
			continue
		}
		open := openSPPackLazy
		if wasDamaged[n] != nil {
			// Known damaged: verify in full now, so a damaged pack is not
			// mapped again (and retired again) on every Reload.
			open = openSPPack
		}
		if openWindowHook != nil {
			openWindowHook(n)
		}
		p, err := open(s.dir, n, s.algo)
		if errors.Is(err, fs.ErrNotExist) && (!exists(filepath.Join(s.dir, n+".idx")) || !exists(filepath.Join(s.dir, n+".pack"))) {
			// Removed since the listing, or an index whose pack gc
			// removed (it deletes the pack file first).
			vanished = append(vanished, n)
			continue
		}
		if err != nil {
			damaged[n] = err
			continue
		}
		p.cache, p.dcache, p.store = s.cache, s.dcache, s
		opened[n] = p
		listed = append(listed, n)
	}
	return listed, damaged, vanished, nil
}

// scanSettled is scan, but a pack file without its index is confirmed
// with no commit between its two renames: a commit renames the pack file,
// then its index, holding the directory lock shared (lock.go), so a scan
// that finds an orphan takes the lock exclusive (waiting out the commit's
// renames) and scans again. An orphan seen then is one no writer is
// committing: a crash's leftover or damage. When the lock cannot be taken
// (a read-only directory without its lock file, say) the first scan
// stands, so damage is still reported.
func (s *Store) scanSettled() (names, orphans []string, err error) {
	names, orphans, err = s.scan()
	if err != nil || len(orphans) == 0 {
		return names, orphans, err
	}
	release, lerr := lockDir(s.dir, true)
	if lerr != nil {
		return names, orphans, nil
	}
	defer release()
	return s.scan()
}

// closeUnlisted closes the packs of opened that a Reload opened (they are
// not known before) and that the final listing does not hold (present).
func closeUnlisted(opened map[string]*spPack, known, present map[string]bool) {
	for n, p := range opened {
		if !present[n] && !known[n] {
			p.close()
			delete(opened, n)
		}
	}
}

// retireGrace is how long a retired pack stays open for readers that
// loaded the pack list before it was retired (a Get takes microseconds; a
// walk holds the pack and keeps it open however long it takes).
const retireGrace = 5 * time.Second

// retiredPack is a pack the store stopped searching, and since when.
type retiredPack struct {
	p  *spPack
	at time.Time
}

// closeRetired closes the retired packs past retireGrace that no walk
// holds; the caller holds s.mu.
func (s *Store) closeRetired() {
	keep := s.retired[:0]
	for _, r := range s.retired {
		if time.Since(r.at) > retireGrace && r.p.holds.Load() == 0 {
			r.p.close()
			continue
		}
		keep = append(keep, r)
	}
	s.retired = keep
}
