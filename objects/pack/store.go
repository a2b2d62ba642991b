package pack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// scan lists the pack names whose index is in the directory, and those of
// pack files without an index (orphans).
func (s *Store) scan() (names, orphans []string, err error) {
	if scanHook != nil {
		scanHook()
	}
	if ok, err := s.checkDir(); !ok || err != nil {
		return nil, nil, err
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("storage packs: %w", err)
	}
	indexed := map[string]bool{}
	var packs []string
	for _, e := range ents {
		n, ext, ok := spFileName(e.Name())
		switch {
		case !ok:
		case ext == ".idx":
			names = append(names, n)
			indexed[n] = true
		default:
			packs = append(packs, n)
		}
	}
	for _, n := range packs {
		if !indexed[n] {
			orphans = append(orphans, n)
		}
	}
	return names, orphans, nil
}

// scanHook, when set by a test, runs at the start of every scan.
var scanHook func()

// checkDir reports whether the directory exists, refusing anything but a
// directory (a symlink among them).
func (s *Store) checkDir() (bool, error) {
	fi, err := os.Lstat(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage packs: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("storage packs: %s is not a directory (symlinks are refused): %w", s.dir, objects.ErrUnsafeFile)
	}
	return true, nil
}

// spFileName splits a storage pack file name "pack-<64 hex>.idx|.pack"
// into the pack's name and the extension.
func spFileName(file string) (name, ext string, ok bool) {
	for _, ext := range []string{".idx", ".pack"} {
		if n, ok := strings.CutSuffix(file, ext); ok && strings.HasPrefix(n, "pack-") && spIsHex(n[len("pack-"):], 64) {
			return n, ext, true
		}
	}
	return "", "", false
}

// newestFirst orders packs by their index's modification time, newest
// first, then by name, so the order is deterministic.
func newestFirst(dir string, ps []*spPack) {
	mtime := make(map[string]int64, len(ps))
	for _, p := range ps {
		if fi, err := os.Lstat(filepath.Join(dir, p.name+".idx")); err == nil {
			mtime[p.name] = fi.ModTime().UnixNano()
		}
	}
	slices.SortFunc(ps, func(a, b *spPack) int {
		if c := mtime[b.name] - mtime[a.name]; c != 0 {
			return min(max(int(c), -1), 1)
		}
		return strings.Compare(b.name, a.name)
	})
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Get reads, verifies and decodes the object id. When several packs hold
// id and the first copy is damaged, a sound copy from another pack is
// returned; when none is sound, the first error is.
func (s *Store) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.get(ctx, id, true)
}

// GetUnparsed is Get without the json body's parse
// (objects.DecodeEnvelopeUnparsedAs).
func (s *Store) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.get(ctx, id, false)
}

// get is Get, parsing a json body only when parse.
func (s *Store) get(ctx context.Context, id objects.OID, parse bool) (*objects.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if id.Algo != s.algo || !id.Type.Valid() {
		return nil, objects.NotFound(id)
	}
	if err := s.ensureOpen(); err != nil {
		return nil, fmt.Errorf("object %s: %w", id, err)
	}
	k := spKeyOf(id)
	var first error
	for _, p := range *s.packs.Load() {
		i, ok := p.idx.find(k)
		if !ok {
			continue
		}
		var o *objects.Object
		err := p.idx.checkEntry(i, p.size)
		if err != nil {
			// A damaged index: the full check fails too and moves the
			// pack to Damaged (the packs are open: no error).
			s.trusted()
			err = fmt.Errorf("object %s: %w", id, corruptFile(filepath.Join(s.dir, p.name+".idx"), err))
		} else if o, err = p.read(id, i, parse); err == nil {
			return o, nil
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	// Absence is said only by verified indexes (index_trust.go);
	// missing verifies them.
	return nil, s.missing(id)
}

// Has reports whether some pack's index lists id. It does not read the
// object.
func (s *Store) Has(ctx context.Context, id objects.OID) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return s.holds(id)
}

// holds is Has without the context.
func (s *Store) holds(id objects.OID) (bool, error) {
	ps, err := s.current()
	if err != nil {
		return false, err
	}
	if id.Algo != s.algo || !id.Type.Valid() {
		return false, nil
	}
	k := spKeyOf(id)
	for _, p := range ps {
		if i, ok := p.idx.find(k); ok {
			if !p.proves(id, i) {
				s.trusted() // a damaged index is believed in nothing
				continue
			}
			return true, nil
		}
	}
	return false, nil
}

// WritePack writes objs as one new pack, durably, and adds it to the
// front of the search order. It returns the pack's name, or "" for an empty
// objs.
func (s *Store) WritePack(ctx context.Context, objs []*objects.Object, opt Options) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(objs) == 0 {
		return "", nil
	}
	w, err := NewWriter(s.dir, s.algo, opt)
	if err != nil {
		return "", err
	}
	return s.finishPack(ctx, w, objs)
}

// finishPack adds objs to w, commits it and installs the pack.
func (s *Store) finishPack(ctx context.Context, w *Writer, objs []*objects.Object) (string, error) {
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return "", err
		}
		if err := w.Add(o); err != nil {
			w.Abort()
			return "", err
		}
	}
	name, err := w.Commit()
	if name == "" {
		return "", err
	}
	// Past the commit point the pack is visible; install it even when only
	// the final directory sync failed.
	if ierr := s.install(name, w.entries); ierr != nil && err == nil {
		err = ierr
	}
	return name, err
}

// install opens a pack this process committed, held holding the entries
// of its objects, and puts it first. Between the commit and the open,
// another process may merge the pack and remove its files (MergeSmall,
// which commits the merged pack before removing anything): then the packs
// are listed again, and the write stands only if every object of the pack
// is found in another.
func (s *Store) install(name string, held []spEntry) error {
	err := s.installOpen(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if rerr := s.Reload(); rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, e := range held {
		id := objects.OID{Algo: s.algo}
		id.Type, _ = spTypeOf(e.key[32])
		copy(id.Digest[:], e.key[:32])
		ok, herr := s.holds(id)
		if herr != nil {
			return errors.Join(err, herr)
		}
		if !ok {
			return fmt.Errorf("storage pack %s was removed after its commit and object %s is in no other pack: %w", name, id, err)
		}
	}
	return nil
}

// installOpen opens the committed pack name and puts it first.
func (s *Store) installOpen(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending.Load() {
		// The first use: open every listed pack, name among them unless
		// it vanished since its commit, which install must then check as
		// it checks a failed open.
		if err := s.reloadLocked(); err != nil {
			return err
		}
		if !slices.ContainsFunc(*s.packs.Load(), func(p *spPack) bool { return p.name == name }) {
			return fmt.Errorf("storage pack %s: %w", filepath.Join(s.dir, name+".idx"), fs.ErrNotExist)
		}
		return nil
	}
	old := *s.packs.Load()
	for _, p := range old {
		if p.name == name {
			return nil // rewritten byte for byte: already open
		}
	}
	if openWindowHook != nil {
		openWindowHook(name)
	}
	p, err := openSPPackLazy(s.dir, name, s.algo)
	if err != nil {
		return err
	}
	p.cache, p.dcache, p.store = s.cache, s.dcache, s
	next := append([]*spPack{p}, old...)
	s.packs.Store(&next)
	return nil
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

// spIsHex reports whether s is n lowercase hex digits.
func spIsHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
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
