package s3remote

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
)

// refsDir is the key directory of refs: refs/<normalized name>.
const refsDir = "refs/"

// maxRefs bounds a listing, like OpenTine's servers (4,096 refs).
const maxRefs = 4096

// refReaders is how many ref objects a listing reads at once.
const refReaders = 8

// remoteRef is a ref as stored: its value and the ETag of the object
// holding it, which a compare-and-swap names in If-Match.
type remoteRef struct {
	id   objects.OID
	etag string
}

// readRef reads ref name; an absent ref is the zero remoteRef. The value
// must be a canonical ref file naming an object of the remote's format
// that the ref's namespace may name.
func (t *Transport) readRef(ctx context.Context, name string) (remoteRef, error) {
	data, etag, err := t.b.get(ctx, refsDir+name, refs.MaxRefFileBytes)
	if errors.Is(err, errNoSuchKey) {
		return remoteRef{}, nil
	}
	if err != nil {
		return remoteRef{}, fmt.Errorf("ref %s: %w", name, err)
	}
	id, err := refs.ParseRefFile(data)
	if err != nil {
		return remoteRef{}, fmt.Errorf("ref %s: %w: %w", name, ErrRemoteCorrupt, err)
	}
	if err := checkRefValue(name, id, t.algo); err != nil {
		return remoteRef{}, err
	}
	if etag == "" {
		return remoteRef{}, fmt.Errorf("ref %s: %w: the server sent no ETag", name, ErrNoConditionalWrites)
	}
	return remoteRef{id: id, etag: etag}, nil
}

// checkRefValue applies the namespace type rule (SPEC §2.5) and the
// remote's object format to a ref value.
func checkRefValue(name string, id objects.OID, algo objects.Algo) error {
	if id.Algo != algo {
		return fmt.Errorf("ref %s: %w: %s is not a %s object", name, ErrRemoteCorrupt, id, algo)
	}
	if want, typed := refs.NamespaceOf(name).TargetType(); typed && id.Type != want {
		return fmt.Errorf("ref %s: %w: names a %s, the namespace holds %ss", name, ErrRemoteCorrupt, id.Type, want)
	}
	return nil
}

// ListRefs lists the refs under refs/ (one LIST request per 1,000 refs)
// and reads each (one GET per ref, refReaders at a time). A key that is
// not a normalized ref name, or a ref object that is not a valid ref
// file, fails the whole listing.
func (t *Transport) ListRefs(ctx context.Context) ([]remote.Ref, error) {
	if _, err := t.format(ctx); err != nil {
		return nil, err
	}
	var names []string
	err := t.b.list(ctx, refsDir, func(rel, _ string, _ int64) error {
		name := strings.TrimPrefix(rel, refsDir)
		if n, err := refs.NormalizeName(name); err != nil || n != name {
			return fmt.Errorf("list refs: %w: key %q is not a ref name", ErrRemoteCorrupt, rel)
		}
		if len(names) == maxRefs {
			return fmt.Errorf("list refs: %w: more than %d refs", ErrTooLarge, maxRefs)
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]remote.Ref, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, refReaders)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := t.readRef(ctx, name)
			out[i], errs[i] = remote.Ref{Name: name, ID: r.id}, err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	// A ref deleted between the LIST and its GET is absent: leave it out.
	kept := out[:0]
	for _, r := range out {
		if !r.ID.IsZero() {
			kept = append(kept, r)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name })
	return kept, nil
}

// updateRef moves ref u.Name from u.Old to u.New by compare-and-swap: it
// reads the ref's object, compares its value with u.Old, and writes u.New
// with If-Match on the ETag it read (If-None-Match: * when u.Old is zero),
// so the server replaces exactly the version compared. 412 means another
// writer moved the ref in between: a *remote.ConflictError naming the
// value found on a second read. A ref that already holds u.New after a 412
// or a write that failed (this push's own write whose reply was lost and
// retried, or another pusher of the same value) has moved as asked.
func (t *Transport) updateRef(ctx context.Context, u remote.RefUpdate) error {
	name, err := refs.NormalizeName(u.Name)
	if err != nil {
		return fmt.Errorf("%w: %w", remote.ErrRefused, err)
	}
	if err := checkRefValue(name, u.New, t.algo); err != nil {
		return fmt.Errorf("%w: %w", remote.ErrRefused, err)
	}
	if refs.NamespaceOf(name) == refs.NamespacePromotions {
		// A promotion moves only through the release policy of the side
		// that owns it, and a bucket runs no code to apply one.
		return fmt.Errorf("ref %s: %w: an S3 remote cannot check a release policy, so promotions/* do not move there; promote in a repository (tine promote, or push to a path or tine serve remote that holds the policy)", name, remote.ErrRefused)
	}
	cur, err := t.readRef(ctx, name)
	if err != nil {
		return err
	}
	if cur.id != u.Old {
		return &remote.ConflictError{Ref: name, Expected: u.Old, Actual: cur.id}
	}
	if cur.id.IsZero() {
		if err := t.checkClash(ctx, name); err != nil {
			return err
		}
	}
	_, err = t.b.putBytes(ctx, refsDir+name, refs.EncodeRefFile(u.New), cur.etag)
	if errors.Is(err, errPrecondition) {
		now, rerr := t.readRef(ctx, name)
		if rerr != nil {
			return fmt.Errorf("ref %s: lost its compare-and-swap, then: %w", name, rerr)
		}
		if now.id == u.New {
			return nil
		}
		return &remote.ConflictError{Ref: name, Expected: u.Old, Actual: now.id}
	}
	if err != nil {
		// Every try may have gone unanswered though one took effect (a
		// write whose reply was lost, its retries' 412s lost too): the
		// ref read back decides, as after a 412.
		if ctx.Err() == nil {
			if now, rerr := t.readRef(ctx, name); rerr == nil && now.id == u.New {
				return nil
			}
		}
		return fmt.Errorf("ref %s: %w", name, err)
	}
	return nil
}

// errStop ends a listing early.
var errStop = errors.New("stop")

// checkClash refuses to create ref name beside a ref above or below it
// (heads/a and heads/a/b): S3 keys could hold both, but no repository
// can, since refs are files there (refs.ErrNameClash). It costs one
// listing and one GET per ancestor component.
func (t *Transport) checkClash(ctx context.Context, name string) error {
	var below string
	err := t.b.list(ctx, refsDir+name+"/", func(rel, _ string, _ int64) error {
		below = strings.TrimPrefix(rel, refsDir)
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if below != "" {
		return fmt.Errorf("ref %s: %w: %w with ref %s on the remote", name, remote.ErrRefused, refs.ErrNameClash, below)
	}
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		above := name[:i]
		if !strings.Contains(above, "/") {
			break // the namespace itself is not a ref
		}
		r, err := t.readRef(ctx, above)
		if err != nil {
			return err
		}
		if !r.id.IsZero() {
			return fmt.Errorf("ref %s: %w: %w with ref %s on the remote", name, remote.ErrRefused, refs.ErrNameClash, above)
		}
	}
	return nil
}
