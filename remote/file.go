package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// FileBatchObjects is how many objects the file transport hands a store in
// one durable batch: one storage pack (a few fsyncs) per batch on the
// receiving side, so a 10,000-event run (20,001 objects with its blobs)
// travels as one batch.
const FileBatchObjects = 32768

// FileBatchBytes bounds the object bodies of one file-transport batch,
// which are in memory together (decoded, several times their size) until
// the batch is stored: a 1,000-iteration loop's runs hold 81 MB of bodies
// that its storage packs keep as deltas in under 3 MB, and as one batch
// they held a clone's heap above 200 MB.
const FileBatchBytes = 4 << 20

// PushActor is the reflog actor of ref moves a push makes on a remote
// repository it writes directly (the file transport).
const PushActor = "tine push"

func init() {
	Register("file", openFile)
	RegisterCheck("file", checkFile)
}

// fileTransport is another repository on disk, opened with plumbing.Open
// and written through its own store, ref transactions and locks: what a
// tine command run in that repository would do. Objects move store to
// store (no frames are encoded).
type fileTransport struct {
	path  string
	repo  *plumbing.Repo
	guard RefGuard
	// has answers Missing; it reflects the loose store as it was when the
	// transport was opened (plumbing.ReceiverHas).
	has func(context.Context, objects.OID) (bool, error)
}

// openFile opens the repository a file URL names.
func openFile(_ context.Context, u *url.URL, opt Options) (Transport, error) {
	if opt.Token != "" || opt.Tenant != "" || opt.Endpoint != "" || opt.AllowInsecure {
		return nil, fmt.Errorf("%s: a path remote takes no token, tenant, endpoint or insecure option: %w", u.Path, ErrUnsupportedURL)
	}
	p := filepath.FromSlash(u.Path)
	if p == "" {
		return nil, fmt.Errorf("file URL %s names no path: %w", u, ErrUnsupportedURL)
	}
	r, err := plumbing.Open(p)
	if errors.Is(err, plumbing.ErrNotRepository) {
		return nil, fmt.Errorf("%s: no tine repository there (run tine init in it first): %w", p, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open remote %s: %w", p, err)
	}
	return &fileTransport{path: p, repo: r, guard: opt.Guard, has: plumbing.ReceiverHas(r)}, nil
}

// Describe reports the repository's object format.
func (t *fileTransport) Describe(context.Context) (*Description, error) {
	return &Description{ObjectFormat: t.repo.Algo(), Protocol: "file", Exists: true}, nil
}

// ListRefs lists every ref of the repository.
func (t *fileTransport) ListRefs(ctx context.Context) ([]Ref, error) {
	var out []Ref
	err := t.repo.Refs().List(ctx, "", func(name string, id objects.OID) error {
		out = append(out, Ref{Name: name, ID: id})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("remote %s: list refs: %w", t.path, err)
	}
	return out, nil
}

// Missing returns the ids the repository does not store. Like a
// RepoSink's Has (plumbing.ReceiverHas) it may name an object another
// writer stored meanwhile, which is then only sent again.
func (t *fileTransport) Missing(ctx context.Context, ids []objects.OID) ([]objects.OID, error) {
	var out []objects.OID
	for _, id := range ids {
		ok, err := t.has(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("remote %s: %s: %w", t.path, id, err)
		}
		if !ok {
			out = append(out, id)
		}
	}
	return out, nil
}

// Fetch walks the closure in the remote repository (its catalog finds the
// associations) and hands sink what it lacks, in batches.
func (t *fileTransport) Fetch(ctx context.Context, req FetchRequest, sink Sink) (*FetchResult, error) {
	if sink.Algo() != t.repo.Algo() {
		return nil, fmt.Errorf("remote %s uses %s objects, this repository %s: %w", t.path, t.repo.Algo(), sink.Algo(), ErrObjectFormat)
	}
	src, err := plumbing.RepoTransferSource(ctx, t.repo)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", t.path, err)
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: req.Wants, Depth: req.Depth, Has: sink.Has})
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", t.path, err)
	}
	install := sink.Install
	if rs, ok := sink.(ReadSink); ok {
		// Every object below comes from t.repo's store, whose Get derived
		// its oid from the stored bytes.
		install = rs.InstallRead
	}
	res := &FetchResult{}
	err = BatchesWithin(ctx, set, runsUnparsed{src}, FileBatchObjects, FileBatchBytes, func(objs []*objects.Object, boundary []objects.OID) error {
		if err := install(ctx, objs, boundary); err != nil {
			return err
		}
		res.Objects += len(objs)
		for _, o := range objs {
			res.Bytes += int64(len(o.Body))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", t.path, err)
	}
	return res, nil
}

// runsUnparsed reads runs without parsing their bodies (objects.GetUnparsed,
// the oid still derived from the stored bytes) and other objects as g
// does: a RepoSink's checks parse each run as they check it, one at a
// time (objects.ValidateLinked reads its graph), where a batch of parsed
// runs would hold several times its bytes until it is stored.
type runsUnparsed struct{ objects.Getter }

// Get reads id, unparsed when it is a run.
func (g runsUnparsed) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if id.Type == objects.TypeRun {
		return objects.GetUnparsed(ctx, g.Getter, id)
	}
	return g.Getter.Get(ctx, id)
}

// Push stores req.Objects in the remote repository through a RepoSink (the
// same verification as a fetch), then applies each ref update with its own
// compare-and-swap under the remote's ref locks.
func (t *fileTransport) Push(ctx context.Context, req PushRequest) (*PushResult, error) {
	for _, u := range req.Updates {
		if u.New.Algo != t.repo.Algo() {
			return nil, fmt.Errorf("push %s to %s: %w: the remote uses %s", u.Name, t.path, ErrObjectFormat, t.repo.Algo())
		}
	}
	sink, err := NewRepoSink(t.repo)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", t.path, err)
	}
	for _, u := range req.Updates {
		sink.Keep(u.New) // the history check reads what each ref will name
	}
	res := &PushResult{}
	if req.Set != nil {
		install := sink.Install
		if req.Verified {
			install = sink.InstallRead
		}
		err = BatchesWithin(ctx, req.Set, req.Source, FileBatchObjects, FileBatchBytes, func(objs []*objects.Object, _ []objects.OID) error {
			if err := install(ctx, objs, nil); err != nil {
				return err
			}
			res.Packs++
			res.Objects += len(objs)
			for _, o := range objs {
				res.Bytes += int64(len(o.Body))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("push to %s: %w", t.path, err)
		}
	}
	for _, u := range req.Updates {
		res.Refs = append(res.Refs, t.move(ctx, u, sink))
	}
	// The catalog is derived: a failure to refresh it here only means the
	// next reader there refreshes it.
	_, _ = plumbing.OpenIndexReading(t.repo, sink).Update(ctx)
	return res, nil
}

// move applies one ref update: a promotion with no guard is refused
// first, then the history check (checkHistory, which also refuses a
// stale expected value as a conflict), then the guard for promotions,
// then the compare-and-swap. sink holds what this push
// installed.
func (t *fileTransport) move(ctx context.Context, u RefUpdate, sink *RepoSink) RefResult {
	rr := RefResult{RefUpdate: u}
	promotion := strings.HasPrefix(u.Name, "promotions/") || strings.HasPrefix(u.Name, "refs/promotions/")
	if promotion && t.guard == nil {
		rr.Err = fmt.Errorf("%w: promotions move only through the release policy, and no policy check is configured", ErrRefused)
		return rr
	}
	if err := t.checkHistory(ctx, u, sink); err != nil {
		rr.Err = err
		return rr
	}
	if promotion {
		if err := t.guard.CheckRef(ctx, t.repo, u); err != nil {
			if !errors.Is(err, ErrRefused) {
				err = fmt.Errorf("%w: %w", ErrRefused, err)
			}
			rr.Err = err
			return rr
		}
	}
	err := updateWaiting(ctx, t.repo, u)
	var stale *refs.StaleError
	switch {
	case errors.As(err, &stale):
		rr.Err = &ConflictError{Ref: u.Name, Expected: u.Old, Actual: stale.Actual}
	case err != nil:
		rr.Err = err // refs errors name the ref
	default:
		rr.Updated = true
	}
	return rr
}

// Close closes the remote repository.
func (t *fileTransport) Close() error { return t.repo.Close() }

// CurrentRun returns the ref the repository's current-run file names ("":
// none), read bounded, without following symlinks, and checked
// (plumbing.Repo.ReadCurrentRun): a damaged file is an error.
func (t *fileTransport) CurrentRun(context.Context) (string, error) {
	c, err := t.repo.ReadCurrentRun()
	if err != nil || c == nil {
		return "", err
	}
	return c.Ref, nil
}

// lockWait bounds how long a push waits for another writer's ref guard.
const lockWait = 60 * time.Second

// updateWaiting applies one CAS, waiting while another writer holds the
// ref's guard: the guard is held only for the length of that writer's
// CAS, after which this CAS decides (most often a conflict, never an
// overwrite). Racing pushers thus get conflicts, not "locked" errors.
func updateWaiting(ctx context.Context, r *plumbing.Repo, u RefUpdate) error {
	deadline := time.Now().Add(lockWait)
	delay := time.Millisecond
	for {
		err := r.Refs().Update(ctx, u.Name, u.New, u.Old, PushActor)
		if !errors.Is(err, refs.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}
