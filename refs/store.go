package refs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/tinehq/tine/objects"
)

// Store reads and updates the refs, reflogs and shallow file of one
// repository. It is safe for concurrent use by goroutines and processes:
// every update is a compare-and-swap under a guard file (SPEC §2.5).
type Store struct {
	root string
	algo objects.Algo
	objs objects.Getter
	now  func() time.Time
	rand io.Reader
	// fs performs every file operation of the write and recovery paths:
	// osFS, or a faulty one in the fault-injection tests.
	fs fileSystem
	// syncParallel is how many fsyncs a transaction keeps in flight
	// (defaultSyncParallel; the fault-injection tests set 1 to fix the
	// order of steps).
	syncParallel int
	// beforeUpdate runs before a transaction that moves a ref fetches its
	// targets (WithBeforeUpdate).
	beforeUpdate func(context.Context) error
	// order says whether reflog rows wait for the renames to be durable
	// (syncOrder); orderAuto until overlapSyncs asks the file system, once.
	order     syncOrder
	orderOnce sync.Once
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock reflog rows are stamped with (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithBeforeUpdate sets a function every transaction that moves a ref
// calls before it fetches its targets; an error aborts the transaction
// before anything changes. The repository uses it to take its writers'
// lock, so gc cannot prune a target between the fetch and the move.
func WithBeforeUpdate(fn func(context.Context) error) Option {
	return func(s *Store) { s.beforeUpdate = fn }
}

// Open returns the store of the repository rooted at repoRoot (the
// directory holding refs/ and logs/). Ref values use the hash profile algo;
// objs fetches and verifies ref targets before any ref moves. Open touches
// nothing on disk: a transaction left half-applied by a crash is rolled
// forward by the next write, List or Recover, and by a Read of a ref
// it involves.
func Open(repoRoot string, algo objects.Algo, objs objects.Getter, opts ...Option) *Store {
	s := &Store{root: repoRoot, algo: algo, objs: objs, now: time.Now, rand: txnRand, fs: osFS{},
		syncParallel: defaultSyncParallel}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Algo returns the hash profile the store's refs use.
func (s *Store) Algo() objects.Algo { return s.algo }

// refPath returns the file of a normalized ref name.
func (s *Store) refPath(name string) string {
	return filepath.Join(s.root, "refs", filepath.FromSlash(name))
}

// logPath returns the reflog file of a normalized ref name.
func (s *Store) logPath(name string) string {
	return filepath.Join(s.root, "logs", filepath.FromSlash(name))
}

// Guard and staging names (SPEC §2.5). The staging name's doubled dot makes
// it neither a legal ref nor a legal guard.
const (
	guardSuffix   = ".lock"
	stagingSuffix = "..lock"
)

// Read returns the value of a ref, or an error wrapping ErrNotFound. The
// file must be a regular, singly linked file holding one oid of the
// store's hash profile (SPEC §2.4). Read does not fetch the target; Resolve
// does.
func (s *Store) Read(ctx context.Context, name string) (objects.OID, error) {
	norm, err := NormalizeName(name)
	if err != nil {
		return objects.OID{}, err
	}
	path := s.refPath(norm)
	// A guard on disk may belong to a transaction that crashed after its
	// commit point; finish it first so the value read is never half of one.
	if _, err := os.Lstat(path + guardSuffix); err == nil {
		if err := s.Recover(ctx); err != nil {
			return objects.OID{}, err
		}
	}
	return s.readRef(norm)
}

// readRef reads a normalized ref without recovery.
func (s *Store) readRef(norm string) (objects.OID, error) {
	path := s.refPath(norm)
	b, err := s.readRegular(path, 1, MaxRefFileBytes, func(n int64) error {
		return &damagedRef{objects.Errorf(objects.ReasonRefFileOversized, "ref %s: file of %d bytes, limit %d", norm, n, MaxRefFileBytes)}
	})
	if err != nil {
		// heads/a/b does not exist when heads/a is a ref (ENOTDIR), nor
		// heads/a when it is a directory of refs.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || isDirErr(path, err) {
			return objects.OID{}, fmt.Errorf("ref %s: %w", norm, ErrNotFound)
		}
		return objects.OID{}, fmt.Errorf("ref %s: %w", norm, err)
	}
	id, err := ParseRefFile(b)
	if err != nil {
		return objects.OID{}, fmt.Errorf("ref %s: %w", norm, &damagedRef{err})
	}
	if id.Algo != s.algo {
		return objects.OID{}, &damagedRef{objects.Errorf(objects.ReasonOidMalformed, "ref %s holds %s, but this repository uses %s", norm, id, s.algo)}
	}
	return id, nil
}

// damagedRef is a readRef failure of a ref file that is there and was
// read but holds no value of this repository: malformed, oversized, or an
// oid of the other hash. Such a ref can only be deleted (Commit).
type damagedRef struct{ err error }

func (d *damagedRef) Error() string { return d.err.Error() }
func (d *damagedRef) Unwrap() error { return d.err }

// IsDamaged reports whether err is a read of a damaged ref file: there
// and read, but holding no value of this repository (Delete with
// ExpectAny or ExpectExists removes it).
func IsDamaged(err error) bool {
	var d *damagedRef
	return errors.As(err, &d)
}

// isDirErr reports whether a read failed because path is a directory: a
// name like heads/a when heads/a/b exists is not a ref.
func isDirErr(path string, err error) bool {
	if !errors.Is(err, ErrNotRegular) {
		return false
	}
	fi, serr := os.Lstat(path)
	return serr == nil && fi.IsDir()
}

// Resolve reads a ref and fetches its target through the store's Getter,
// which re-verifies the oid, and applies CheckTarget (SPEC §2.5: the type
// rule is checked on read too).
func (s *Store) Resolve(ctx context.Context, name string) (*objects.Object, error) {
	id, err := s.Read(ctx, name)
	if err != nil {
		return nil, err
	}
	norm, _ := NormalizeName(name)
	return s.fetchTarget(ctx, norm, id)
}

// getRun reads run id as fetch does without parse.
func (s *Store) getRun(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := objects.GetUnparsed(ctx, s.objs, id)
	if err != nil || o.Parsed() {
		return o, err
	}
	if _, err := objects.SplitRunBody(id.Algo, o.Body); err == nil {
		return o, nil
	}
	return o.WithValue()
}

// fetchTarget fetches id and checks it may be the value of ref name.
func (s *Store) fetchTarget(ctx context.Context, name string, id objects.OID) (*objects.Object, error) {
	return s.fetch(ctx, name, id, true)
}

// fetch is fetchTarget; without parse, a run target is read with its oid
// verified and its body checked canonical by objects.SplitRunBody, which
// does not build a value per event (a ref update needs the target's
// existence, name, type and soundness, and a long run's body is
// megabytes); a body the split does not take apart is decoded in full.
func (s *Store) fetch(ctx context.Context, name string, id objects.OID, parse bool) (*objects.Object, error) {
	if id.IsZero() {
		return nil, objects.Errorf(objects.ReasonOidMalformed, "ref %s: no target oid", name)
	}
	if id.Algo != s.algo {
		return nil, objects.Errorf(objects.ReasonOidMalformed, "ref %s: target %s does not use this repository's %s", name, id, s.algo)
	}
	get := s.objs.Get
	if !parse && id.Type == objects.TypeRun {
		get = s.getRun
	}
	obj, err := get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("ref %s: target: %w", name, err)
	}
	if obj == nil || obj.ID != id {
		return nil, objects.Errorf(objects.ReasonEnvelopeOidMismatch, "ref %s: store returned a different object for %s", name, id)
	}
	if err := CheckTarget(name, obj); err != nil {
		return nil, err
	}
	return obj, nil
}
