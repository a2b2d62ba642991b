package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/plumbing"
)

// RepoSink is a repository as a Sink: fetched objects are verified like a
// TINEPACK3 install (oid, links, run graph, annotation chains; every link
// earlier in the batch, stored, shallow or declared as boundary) and
// written through a plumbing.BulkWriter, one durable batch per Install, in
// the order given (link targets first), so a crash leaves a link-closed
// store. The declared boundary reaches the shallow file before any object
// that links to it. Call Finish after the last batch.
type RepoSink struct {
	r       *plumbing.Repo
	shallow map[objects.OID]bool
	// earlier holds what earlier batches installed (events,
	// attestations and annotations up to maxKeptBytes of bodies, blobs
	// and runs as nil), so a later batch's links and run graph resolve
	// without reading the store back: they read events and annotations,
	// never runs, which are most of a history's bytes.
	earlier map[objects.OID]*objects.Object
	kept    int64
	// keep names runs kept in earlier all the same (Keep).
	keep  map[objects.OID]bool
	has   func(context.Context, objects.OID) (bool, error)
	links LinkMemo
	// Installed counts the objects stored; Boundary the shallow entries
	// added.
	Installed int
	Boundary  int
	// Bytes counts the stored body bytes.
	Bytes int64
}

// NewRepoSink returns a Sink writing into r.
func NewRepoSink(r *plumbing.Repo) (*RepoSink, error) {
	shallow, err := r.ShallowSet()
	if err != nil {
		return nil, err
	}
	return &RepoSink{r: r, shallow: shallow, earlier: map[objects.OID]*objects.Object{}, has: plumbing.ReceiverHas(r), links: LinkMemo{}}, nil
}

// Links returns the memo of the links the sink parsed while verifying: a
// transport that parses the links of the objects it hands over (to order
// them, or find its next request) shares it, so each object's links are
// parsed once per transfer. A run's links leave the memo once the run is
// installed (unless Keep named it): a loop's runs each list most of the
// same events, and their lists together would outweigh the rest.
func (s *RepoSink) Links() LinkMemo { return s.links }

// Algo returns the repository's object format.
func (s *RepoSink) Algo() objects.Algo { return s.r.Algo() }

// Has reports whether the repository stores id, as a transfer's walk asks
// it (plumbing.ReceiverHas: it may report an object stored meanwhile by
// another writer absent, which only sends it again).
func (s *RepoSink) Has(ctx context.Context, id objects.OID) (bool, error) {
	if _, ok := s.earlier[id]; ok {
		// Installed by an earlier batch of this transfer: the pack-first
		// answer of ReceiverHas may not see the packs written since.
		return true, nil
	}
	return s.has(ctx, id)
}

// Install verifies and stores one batch (see Sink.Install).
func (s *RepoSink) Install(ctx context.Context, objs []*objects.Object, boundary []objects.OID) error {
	return s.install(ctx, objs, boundary, nil, true)
}

// InstallRead verifies and stores one batch of objects read through a
// store's Get in this process (see ReadSink): their oids were derived from
// their bytes by that read, so only their format is checked again here.
// An unparsed run is parsed by its checks (objects.Links takes its events
// from the bytes of a body objects.SplitRunBody accepts, one
// DecodeEnvelope would accept; objects.CheckRunGraph parses it), one run
// at a time.
func (s *RepoSink) InstallRead(ctx context.Context, objs []*objects.Object, boundary []objects.OID) error {
	return s.install(ctx, objs, boundary, nil, false)
}

// install verifies and stores one batch, keeping the raw blocks some
// objects came in where it can (see BlockSink); rehash derives each oid
// again.
func (s *RepoSink) install(ctx context.Context, objs []*objects.Object, boundary []objects.OID, blocks []pack.RawBlock, rehash bool) error {
	store := s.r.Objects()
	in := &sinkResolver{ctx: ctx, store: store, earlier: s.earlier, batch: make(map[objects.OID]*objects.Object, len(objs)),
		shallow: s.shallow, declared: make(map[objects.OID]bool, len(boundary))}
	for _, id := range boundary {
		if id.Algo != s.r.Algo() {
			return fmt.Errorf("boundary %s: %w: this repository uses %s", id, ErrObjectFormat, s.r.Algo())
		}
		in.declared[id] = true
	}
	external := map[objects.OID]bool{}
	for _, o := range objs {
		if err := checkObject(o, s.r.Algo(), rehash); err != nil {
			return err
		}
		links, err := s.links.Links(o)
		if err != nil {
			return fmt.Errorf("received %w", err)
		}
		for _, l := range links {
			if in.batch[l] != nil {
				continue
			}
			ok, err := in.resolvable(l)
			if err != nil {
				return fmt.Errorf("received %s %s: link %s: %w", o.Type, o.ID, l, err)
			}
			if !ok {
				return fmt.Errorf("received %s %s links to %s, which was neither sent before it, stored here nor declared shallow: %w", o.Type, o.ID, l, ErrIncomplete)
			}
			external[l] = true
		}
		in.batch[o.ID] = o
	}
	for _, id := range boundary {
		if !external[id] {
			return fmt.Errorf("declared boundary %s is not a link of the received objects: %w", id, ErrIncomplete)
		}
	}
	for _, o := range objs {
		links, err := s.links.Links(o) // parsed above
		if err != nil {
			return fmt.Errorf("received %w", err)
		}
		if err := objects.ValidateLinked(o, links, in); err != nil {
			return fmt.Errorf("received %w", err)
		}
	}
	if err := s.addShallow(ctx, boundary); err != nil {
		return err
	}
	if err := s.write(ctx, objs, blocks); err != nil {
		return err
	}
	for _, o := range objs {
		s.Bytes += int64(len(o.Body))
	}
	s.Installed += len(objs)
	for _, o := range objs {
		run := o.Type == objects.TypeRun && !s.keep[o.ID]
		if run {
			// Its links were needed for this batch only (Links).
			delete(s.links, o.ID)
		}
		if o.Type == objects.TypeBlob || run || s.kept+int64(len(o.Body)) > maxKeptBytes {
			s.earlier[o.ID] = nil
			continue
		}
		s.earlier[o.ID] = o
		s.kept += int64(len(o.Body))
	}
	return nil
}

// Keep asks the sink to keep the runs ids in memory once installed (see
// Get) with their parsed links (Links), as it keeps events: a push keeps
// the runs its refs will name, which the history check then reads. Other
// runs are dropped once their batch is stored. Call it before the
// installs.
func (s *RepoSink) Keep(ids ...objects.OID) {
	if s.keep == nil {
		s.keep = map[objects.OID]bool{}
	}
	for _, id := range ids {
		s.keep[id] = true
	}
}

// Get returns an object an earlier Install stored and kept in memory (not
// blobs, nor runs unless Keep named them, within maxKeptBytes), else
// objects.ErrNotFound: what a catalog update after the transfer reads
// without going back to the store (plumbing.OpenIndexReading).
func (s *RepoSink) Get(_ context.Context, id objects.OID) (*objects.Object, error) {
	if o := s.earlier[id]; o != nil {
		return o.WithValue() // a run installed unparsed is parsed for the reader
	}
	return nil, objects.NotFound(id)
}

// Local returns the repository's store: a fetch's Scope reads there the
// objects a reply leaves out because the repository holds them.
func (s *RepoSink) Local() objects.Getter { return s.r.Objects() }

// Stored reports whether an Install of this sink stored id. It stays
// stored while the repository handle holds its writers' lock, which its
// first write took and which it keeps until it is closed: no prune can
// run meanwhile.
func (s *RepoSink) Stored(id objects.OID) bool {
	_, ok := s.earlier[id]
	return ok
}

// maxKeptBytes bounds the object bodies a RepoSink keeps from earlier
// batches for resolving later ones.
const maxKeptBytes = 256 << 20

// checkObject checks an object's format and, with rehash, re-derives its
// oid from its bytes, so a transport bug can never store a misnamed
// object. Without rehash the caller vouches that a store read derived it.
func checkObject(o *objects.Object, a objects.Algo, rehash bool) error {
	if o.ID.Algo != a {
		return fmt.Errorf("received %s: %w: this repository uses %s", o.ID, ErrObjectFormat, a)
	}
	if o.Type != o.ID.Type {
		return fmt.Errorf("received %s has type %s: %w", o.ID, o.Type, ErrObjectFormat)
	}
	if !rehash {
		return nil
	}
	if got := a.Derive(o.Type, o.Schema, o.Body); got != o.ID {
		return fmt.Errorf("received %s hashes to %s: %w", o.ID, got, ErrObjectFormat)
	}
	return nil
}

// addShallow records the declared boundary oids the store lacks.
func (s *RepoSink) addShallow(ctx context.Context, boundary []objects.OID) error {
	var add []objects.OID
	for _, id := range boundary {
		if _, ok := s.earlier[id]; ok || s.shallow[id] {
			// Stored by an earlier batch (a fetch's held-back run names
			// every event the batches before it stored), or recorded.
			continue
		}
		has, err := s.r.Objects().Has(ctx, id)
		if err != nil {
			return fmt.Errorf("boundary %s: %w", id, err)
		}
		if !has {
			add = append(add, id)
		}
	}
	if len(add) == 0 {
		return nil
	}
	err := s.r.Refs().UpdateShallow(ctx, func(cur []objects.OID) ([]objects.OID, error) {
		return append(slices.Clone(cur), add...), nil
	})
	if err != nil {
		return fmt.Errorf("record shallow boundary: %w", err)
	}
	for _, id := range add {
		s.shallow[id] = true
	}
	s.Boundary += len(add)
	return nil
}

// Finish drops from the shallow file the oids now stored (a deepening
// fetch brought them), as OpenTine rewrites it after an import.
func (s *RepoSink) Finish(ctx context.Context) error {
	return TrimShallow(ctx, s.r)
}

// TrimShallow removes from r's shallow file every oid r now stores.
func TrimShallow(ctx context.Context, r *plumbing.Repo) error {
	cur, err := r.Refs().ReadShallow()
	if err != nil || len(cur) == 0 {
		return err
	}
	stored := false
	for _, id := range cur {
		has, err := r.Objects().Has(ctx, id)
		if err != nil {
			return err
		}
		stored = stored || has
	}
	if !stored {
		return nil
	}
	return r.Refs().UpdateShallow(ctx, func(cur []objects.OID) ([]objects.OID, error) {
		keep := make([]objects.OID, 0, len(cur))
		for _, id := range cur {
			has, err := r.Objects().Has(ctx, id)
			if err != nil {
				return nil, err
			}
			if !has {
				keep = append(keep, id)
			}
		}
		return keep, nil
	})
}

// sinkResolver validates a batch against itself, the store and both the
// existing and the declared shallow oids.
type sinkResolver struct {
	ctx      context.Context
	store    objects.Store
	earlier  map[objects.OID]*objects.Object
	batch    map[objects.OID]*objects.Object
	shallow  map[objects.OID]bool
	declared map[objects.OID]bool
}

// Resolve returns a batch object, else the store's, else nil.
func (p *sinkResolver) Resolve(id objects.OID) (*objects.Object, error) {
	if o := p.batch[id]; o != nil {
		return o, nil
	}
	if o := p.earlier[id]; o != nil {
		return o, nil
	}
	o, err := p.store.Get(p.ctx, id)
	if errors.Is(err, objects.ErrNotFound) {
		return nil, nil
	}
	return o, err
}

// Present reports whether id is in the batch or the store.
func (p *sinkResolver) Present(id objects.OID) (bool, error) {
	if _, ok := p.earlier[id]; ok || p.batch[id] != nil {
		return true, nil
	}
	return p.store.Has(p.ctx, id)
}

// Shallow reports an existing or declared boundary oid.
func (p *sinkResolver) Shallow(id objects.OID) bool { return p.shallow[id] || p.declared[id] }

// resolvable reports whether a link leaving the batch resolves.
func (p *sinkResolver) resolvable(id objects.OID) (bool, error) {
	if _, ok := p.earlier[id]; ok || p.Shallow(id) {
		return true, nil
	}
	return p.store.Has(p.ctx, id)
}
