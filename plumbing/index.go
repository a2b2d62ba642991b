package plumbing

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/index"
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

// IndexRebuildOptions configures IndexRebuild (no options yet; the struct
// keeps the verb's signature stable as options are added).
type IndexRebuildOptions struct{}

// IndexRebuildResult is what `tine index rebuild` and `tine index update`
// report: the action taken and the sizes of the catalog's tables.
type IndexRebuildResult struct {
	// Path is the catalog file relative to the repository directory.
	Path string `json:"path"`
	index.Report
}

// IndexRebuild builds the derived catalog from scratch out of the refs and
// objects, replacing the file atomically whatever state it was in.
func IndexRebuild(ctx context.Context, r *Repo, _ IndexRebuildOptions) (*IndexRebuildResult, error) {
	rep, err := OpenIndex(r).Rebuild(ctx)
	if err != nil {
		return nil, fmt.Errorf("index rebuild: %w", err)
	}
	return &IndexRebuildResult{Path: IndexPath, Report: *rep}, nil
}

// IndexUpdateOptions configures IndexUpdate (no options yet).
type IndexUpdateOptions struct{}

// IndexUpdate brings the derived catalog up to date, reading only the runs,
// attestations and annotations it lacks; a missing or damaged file is
// rebuilt. It is what writers call after moving refs or adding objects.
func IndexUpdate(ctx context.Context, r *Repo, _ IndexUpdateOptions) (*IndexRebuildResult, error) {
	rep, err := OpenIndex(r).Update(ctx)
	if err != nil {
		return nil, fmt.Errorf("index update: %w", err)
	}
	return &IndexRebuildResult{Path: IndexPath, Report: *rep}, nil
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
