package s3remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

func init() {
	remote.Register(Scheme, open)
	remote.RegisterCheck(Scheme, check)
}

// check is the remote.Checker of s3:// URLs: the bucket and prefix, the
// endpoint's form, and no token variable (S3 takes AWS_* credentials).
// The probe of remote add then contacts the server.
func check(u *url.URL, c remote.Config) error {
	if c.Token {
		return fmt.Errorf("%s: %w: --token-env is for HTTP remotes; S3 takes AWS_* credentials", u.Redacted(), remote.ErrUnsupportedURL)
	}
	if _, _, err := ParseURL(Scheme + "://" + u.Host + u.Path); err != nil {
		return err
	}
	if c.Endpoint != "" {
		if err := CheckEndpoint(c.Endpoint); err != nil {
			return err
		}
	}
	return nil
}

// open is the remote.Opener of s3:// URLs: the configuration comes from
// the environment (ConfigFromEnv) and opt.Endpoint.
func open(_ context.Context, u *url.URL, opt remote.Options) (remote.Transport, error) {
	if opt.Token != "" || opt.Tenant != "" || opt.AllowInsecure {
		return nil, fmt.Errorf("%s: %w: tokens, tenants and --allow-insecure are for HTTP remotes; S3 takes AWS_* credentials", u.Redacted(), remote.ErrUnsupportedURL)
	}
	raw := Scheme + "://" + u.Host + u.Path
	cfg, err := ConfigFromEnv(raw, opt.Endpoint, os.Getenv)
	if err != nil {
		return nil, err
	}
	return New(cfg, opt), nil
}

// Transport is an S3 remote: a bucket prefix laid out as doc.go says,
// moved with conditional writes. It is safe for concurrent use.
type Transport struct {
	b   *bucket
	url string // s3://bucket/prefix, for messages
	opt remote.Options

	mu    sync.Mutex // guards algo, absent and packs
	algo  objects.Algo
	packs *packIndex
	// absent records that the marker was missing when last read: Missing
	// then answers "everything" without asking again (a push walk asks
	// object by object; a remote created meanwhile only costs a re-upload).
	absent bool
}

// New returns the Transport of cfg. A first push creates the remote (its
// marker) with the pushed objects' format (opt.ObjectFormat for a push of
// nothing); fetches never create. opt.Guard is not used: an S3
// remote has no side that owns a release policy, so promotions/* move only
// after the pushing side's own policy check.
func New(cfg Config, opt remote.Options) *Transport {
	u := Scheme + "://" + cfg.Bucket
	if cfg.Prefix != "" {
		u += "/" + cfg.Prefix
	}
	return &Transport{b: newBucket(cfg), url: u, opt: opt}
}

// URL returns the remote's s3:// URL.
func (t *Transport) URL() string { return t.url }

// Close releases nothing: the HTTP client's idle connections close by
// themselves.
func (t *Transport) Close() error { return nil }

// Describe reads the marker: the remote's object format, or Exists false
// for a prefix no push has created yet.
func (t *Transport) Describe(ctx context.Context) (*remote.Description, error) {
	algo, err := t.format(ctx)
	if errors.Is(err, remote.ErrNotFound) && !errors.Is(err, errNoSuchBucket) {
		return &remote.Description{Protocol: "s3", Exists: false}, nil
	}
	if err != nil {
		return nil, err
	}
	return &remote.Description{ObjectFormat: algo, Protocol: "s3", Exists: true}, nil
}

// Missing returns the ids of ids that no remote pack holds, by the pack
// indexes as last listed (the first call lists them; a push walk calls it
// object by object): an object pushed by another client since is at worst
// sent again.
func (t *Transport) Missing(ctx context.Context, ids []objects.OID) ([]objects.OID, error) {
	t.mu.Lock()
	absent := t.absent
	t.mu.Unlock()
	if absent {
		return ids, nil
	}
	if _, err := t.format(ctx); errors.Is(err, remote.ErrNotFound) {
		return ids, nil
	} else if err != nil {
		return nil, err
	}
	pi, err := t.knownPacks(ctx)
	if err != nil {
		return nil, err
	}
	var out []objects.OID
	for _, id := range ids {
		if !pi.has(id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// Push uploads the objects the remote lacks as one storage pack (pack,
// then index), then moves each ref by compare-and-swap (updateRef). Every
// link of a pushed object must be pushed too or already on the remote: a
// push never leaves a remote with a dangling link.
func (t *Transport) Push(ctx context.Context, req remote.PushRequest) (*remote.PushResult, error) {
	var ids []objects.OID
	if req.Set != nil {
		ids = req.Set.IDs
	}
	a, err := pushAlgo(ids, req.Updates)
	if err != nil {
		return nil, err
	}
	if a == "" {
		a = t.opt.ObjectFormat
	}
	if err := t.requireFormat(ctx, a); err != nil {
		return nil, err
	}
	pi, err := t.loadPacks(ctx)
	if err != nil {
		return nil, err
	}
	sp, err := t.stagePack(ctx, req, ids, pi)
	if err != nil {
		return nil, err
	}
	defer sp.remove()
	for _, u := range req.Updates {
		if !pi.has(u.New) && !sp.in[u.New] {
			return nil, fmt.Errorf("%s: ref %s: %w: %s is neither pushed nor on the remote", t.url, u.Name, remote.ErrIncomplete, u.New)
		}
	}
	res := &remote.PushResult{Refs: make([]remote.RefResult, len(req.Updates))}
	if sp.name != "" {
		n, err := t.upload(ctx, sp)
		res.Bytes += n
		if err != nil {
			return nil, err
		}
		res.Objects, res.Packs = len(sp.in), 1
	}
	for i, u := range req.Updates {
		res.Refs[i].RefUpdate = u
		if err := t.updateRef(ctx, u); err != nil {
			res.Refs[i].Err = err
			continue
		}
		res.Refs[i].Updated = true
	}
	return res, nil
}

// pushAlgo is the object format of a push: every id's, which must agree
// ("" for a push of nothing).
func pushAlgo(ids []objects.OID, updates []remote.RefUpdate) (objects.Algo, error) {
	var a objects.Algo
	check := func(id objects.OID) error {
		if a == "" {
			a = id.Algo
		}
		if id.Algo != a {
			return fmt.Errorf("push: %w: %s among %s objects", remote.ErrObjectFormat, id, a)
		}
		return nil
	}
	for _, id := range ids {
		if err := check(id); err != nil {
			return "", err
		}
	}
	for _, u := range updates {
		if err := check(u.New); err != nil {
			return "", err
		}
	}
	return a, nil
}

// Fetch walks req's closure on this side (plumbing.TransferClosure over
// the remote's packs, with the sink as the receiver) and installs it in
// batches, link targets first. Packs are downloaded whole, each at most
// once, only when one of their objects is needed.
func (t *Transport) Fetch(ctx context.Context, req remote.FetchRequest, sink remote.Sink) (*remote.FetchResult, error) {
	if err := t.requireExisting(ctx, sink.Algo()); err != nil {
		return nil, err
	}
	pi, err := t.loadPacks(ctx)
	if err != nil {
		return nil, err
	}
	src, err := newPackSource(t, pi, sink.Has)
	if err != nil {
		return nil, err
	}
	defer src.close()
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: req.Wants, Depth: req.Depth, Has: sink.Has})
	if err != nil {
		return nil, fmt.Errorf("%s: fetch: %w", t.url, err)
	}
	n := 0
	err = remote.Batches(ctx, set, src, objects.MaxPackObjects, func(objs []*objects.Object, boundary []objects.OID) error {
		n += len(objs)
		return sink.Install(ctx, objs, boundary)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: fetch: %w", t.url, err)
	}
	return &remote.FetchResult{Objects: n, Bytes: src.bytes}, nil
}

// requireExisting fails unless the remote exists with format a (fetch
// never creates).
func (t *Transport) requireExisting(ctx context.Context, a objects.Algo) error {
	have, err := t.format(ctx)
	if err != nil {
		return err
	}
	if have != a {
		return fmt.Errorf("%s: %w: the remote holds %s objects, this repository %s", t.url, remote.ErrObjectFormat, have, a)
	}
	return nil
}
