package view

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// snapshot is what the view shows of a repository at one set of refs:
// the graph of every ref's runs and its lane layout. It is rebuilt when
// the refs change, so a page reload shows new runs.
type snapshot struct {
	// key digests every ref's name and value.
	key string
	// version counts rebuilds; the page reloads when it changes.
	version int
	graph   *Graph
	layout  *Layout
}

// refsKey digests the names and values of every ref.
func refsKey(ctx context.Context, r *plumbing.Repo) (string, error) {
	h := sha256.New()
	err := r.Refs().List(ctx, "", func(name string, id objects.OID) error {
		fmt.Fprintf(h, "%s\x00%s\n", name, id)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("listing refs: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// current returns the snapshot for the refs as they are now, rebuilding
// the cached one when they moved. The caller holds s.mu.
func (s *Server) current(ctx context.Context) (*snapshot, error) {
	key, err := refsKey(ctx, s.r)
	if err != nil {
		return nil, err
	}
	if s.snap != nil && s.snap.key == key {
		return s.snap, nil
	}
	g, err := BuildGraph(ctx, s.r, GraphOptions{All: true})
	if err != nil {
		return nil, err
	}
	// A run's status and fork reason are recorded text sent with every
	// /api/graph: cut like the rows' labels and the event fields.
	for i := range g.Runs {
		gr := &g.Runs[i]
		gr.Status = clipText(gr.Status, MaxLabelText)
		if gr.ForkedFrom != nil {
			f := *gr.ForkedFrom
			f.Reason = clipText(f.Reason, maxFieldText)
			gr.ForkedFrom = &f
		}
	}
	version := 1
	if s.snap != nil {
		version = s.snap.version + 1
	}
	s.snap = &snapshot{key: key, version: version, graph: g, layout: NewLayout(g)}
	return s.snap, nil
}
