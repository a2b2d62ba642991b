package plumbing

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
)

// IndexPath is the derived catalog's file, relative to the repository
// directory (see package index: under objects/, outside the type
// directories, so OpenTine and fsck skip it).
const IndexPath = index.Dir + "/" + index.File

// OpenIndex returns the derived catalog handle of r with tine's evidence
// rules. Porcelain calls OpenIndex(r).Update(ctx) after its writes and
// OpenIndex(r).Catalog(ctx) to answer queries; both bring a stale,
// missing or damaged catalog up to date first.
func OpenIndex(r *Repo) *index.Index {
	return index.New(r.root, r.algo, r.Objects(), r.refs, index.Options{})
}

// OpenIndexReading is OpenIndex reading objects through recent first: a
// writer that still holds the objects it just stored and verified (a
// fetch's or push's receiver) spares the catalog update reading them back
// from the store. recent returns objects.ErrNotFound for what it lacks.
func OpenIndexReading(r *Repo, recent objects.Getter) *index.Index {
	return index.New(r.root, r.algo, recentSource{recent: recent, Store: r.Objects()}, r.refs, index.Options{})
}

// recentSource reads through recent, then the store.
type recentSource struct {
	recent objects.Getter
	objects.Store
}

// Get returns id from recent, else from the store.
func (s recentSource) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.recent.Get(ctx, id)
	if !errors.Is(err, objects.ErrNotFound) {
		return o, err
	}
	return s.Store.Get(ctx, id)
}

// GetUnparsed returns id from recent, else from the store unparsed where
// it can (objects.GetUnparsed): the catalog reads a run it was not handed
// without parsing its events list, as it would from the store itself.
func (s recentSource) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	o, err := s.recent.Get(ctx, id)
	if !errors.Is(err, objects.ErrNotFound) {
		return o, err
	}
	return objects.GetUnparsed(ctx, s.Store, id)
}

// ListTypes lists the store's objects of the given types, by type where
// the store can (objects.ListTypes): embedding the Store interface
// promotes only its own methods.
func (s recentSource) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	return objects.ListTypes(ctx, s.Store, types, fn)
}

// SortForRead reorders ids in the store's read order
// (objects.ReadOrderer), which embedding the Store interface does not
// promote either.
func (s recentSource) SortForRead(ids []objects.OID) { objects.SortForRead(s.Store, ids) }

// IndexRebuildOptions configures IndexRebuild.
type IndexRebuildOptions struct {
	// Progress, when set, is called from the calling goroutine as the
	// catalog and then the search index start.
	Progress func(GCProgress)
}

// IndexRebuildResult is what `tine index rebuild` and `tine index update`
// report: the action taken and the sizes of the catalog's tables.
type IndexRebuildResult struct {
	// Path is the catalog file relative to the repository directory.
	Path string `json:"path"`
	index.Report
	// Search is what the same call did to the search index
	// (SearchIndexPath), which is kept with the catalog.
	Search *index.SearchReport `json:"search"`
}

// SearchIndexPath is the search index file relative to the repository
// directory (`tine search`; index.SearchFile beside the catalog).
const SearchIndexPath = index.Dir + "/" + index.SearchFile

// withSearch brings the search index up to date with the catalog (from
// scratch when rebuild), as `tine index rebuild` and `update` promise.
func withSearch(ctx context.Context, r *Repo, rep *index.Report, rebuild bool, progress func(GCProgress)) (*IndexRebuildResult, error) {
	indexStep(progress, "search index", 1)
	ix := OpenIndex(r)
	cat, _, err := ix.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	_, srep, err := ix.Search(ctx, cat, rebuild)
	if err != nil {
		return nil, err
	}
	if srep.SaveErr != nil {
		return nil, srep.SaveErr
	}
	return &IndexRebuildResult{Path: IndexPath, Report: *rep, Search: srep}, nil
}

// IndexRebuild builds the derived catalog and the search index from
// scratch out of the refs and objects, replacing the files atomically
// whatever state they were in.
func IndexRebuild(ctx context.Context, r *Repo, opt IndexRebuildOptions) (*IndexRebuildResult, error) {
	indexStep(opt.Progress, "catalog", 0)
	rep, err := OpenIndex(r).Rebuild(ctx)
	if err != nil {
		return nil, fmt.Errorf("index rebuild: %w", err)
	}
	res, err := withSearch(ctx, r, rep, true, opt.Progress)
	if err != nil {
		return nil, fmt.Errorf("index rebuild: search index: %w", err)
	}
	return res, nil
}

// IndexUpdateOptions configures IndexUpdate.
type IndexUpdateOptions struct {
	// Progress is as in IndexRebuildOptions.
	Progress func(GCProgress)
}

// IndexUpdate brings the derived catalog up to date, reading only the runs,
// attestations and annotations it lacks, then the search index, reading
// only the events it lacks; a missing or damaged file is rebuilt. It is what writers call after moving refs or adding objects.
func IndexUpdate(ctx context.Context, r *Repo, opt IndexUpdateOptions) (*IndexRebuildResult, error) {
	indexStep(opt.Progress, "catalog", 0)
	rep, err := OpenIndex(r).Update(ctx)
	if err != nil {
		return nil, fmt.Errorf("index update: %w", err)
	}
	res, err := withSearch(ctx, r, rep, false, opt.Progress)
	if err != nil {
		return nil, fmt.Errorf("index update: search index: %w", err)
	}
	return res, nil
}

// indexStep reports the start of step done of IndexRebuild's or
// IndexUpdate's two.
func indexStep(progress func(GCProgress), phase string, done int) {
	if progress != nil {
		progress(GCProgress{Phase: phase, Done: done, Total: 2})
	}
}

// IndexStatusOptions configures IndexStatus (no options yet).
type IndexStatusOptions struct{}

// IndexStatusResult is what `tine index status` reports.
type IndexStatusResult struct {
	index.Status
}

// IndexStatus reports whether the derived catalog is fresh, stale, missing,
// corrupt or built for another configuration, without writing anything.
func IndexStatus(ctx context.Context, r *Repo, _ IndexStatusOptions) (*IndexStatusResult, error) {
	st, err := OpenIndex(r).Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("index status: %w", err)
	}
	st.Path = IndexPath
	return &IndexStatusResult{Status: *st}, nil
}
