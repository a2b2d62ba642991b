package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// NamedRun is a run (its payload; events are read on demand) and the ref
// that names it, "" when no ref points at it now (REF~N, REF@{n}, an oid).
type NamedRun struct {
	Ref string
	Run *Run
}

// ResolveRuns resolves revisions to runs as log does: a run a ref no
// longer points at is not named by it. A run named twice through the same
// ref is listed once.
func ResolveRuns(ctx context.Context, r *plumbing.Repo, revs []string) ([]NamedRun, error) {
	var out []NamedRun
	seen := map[string]bool{}
	for _, rev := range revs {
		run, ref, err := resolveRunHead(ctx, r, r.Objects(), rev)
		if err != nil {
			return nil, err
		}
		if cur, err := r.Refs().Read(ctx, ref); ref != "" && (err != nil || cur != run.ID) {
			ref = ""
		}
		key := ref + "\x00" + run.ID.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, NamedRun{Ref: ref, Run: run})
	}
	return out, nil
}

// AllRuns lists the runs log --all covers: every run a heads/,
// experiments/, promotions/, tags/ or remotes/ ref points at, in ref
// order.
func AllRuns(ctx context.Context, g objects.Getter, rl RefLister) ([]NamedRun, error) {
	var out []NamedRun
	err := ListRuns(ctx, rl, g, "", func(name string, run *Run) error {
		if refs.NamespaceOf(name) != refs.NamespaceAnnotations {
			out = append(out, NamedRun{Ref: name, Run: run})
		}
		return nil
	})
	return out, err
}

// LogRuns is Log --all over the given runs: their events merged by oid
// into one DAG in the same order (children first, newest time_unix first,
// then by oid; untimed events last: mergedOrder), refs decorated at the tips of their runs, with the nodes
// RenderGraph draws, the newest limit events (all when limit is 0). It is
// the walk behind tine graph and tine view.
func LogRuns(ctx context.Context, g objects.Getter, named []NamedRun, limit int) (*LogResult, []GraphNode, error) {
	return logUnion(ctx, g, func(fn func(name string, run *Run) error) error {
		for _, n := range named {
			if err := fn(n.Ref, n.Run); err != nil {
				return err
			}
		}
		return nil
	}, limit)
}

// LogAllNodes is LogRuns over AllRuns served by cat (brought up to date
// with the refs, as plumbing's Catalog returns it), as log --all is
// (log_catalog.go): the same entries and nodes, without holding every run
// object or reading any event the catalog describes whole; the others
// are read through g. ok is false when the catalog cannot serve it; the
// caller then takes the direct path.
func LogAllNodes(ctx context.Context, cat *index.Catalog, g objects.Getter) (res *LogResult, nodes []GraphNode, ok bool, err error) {
	res, _, ok, err = logAllFrom(ctx, cat, g, 0)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	// The nodes are the entries' oids and unique parents, as logUnion
	// takes them from the events.
	nodes = make([]GraphNode, len(res.Entries))
	for i := range res.Entries {
		le := &res.Entries[i]
		if nodes[i].ID, err = objects.ParseOID(le.Event); err != nil {
			return nil, nil, false, fmt.Errorf("catalog entry %q: %w", le.Event, err)
		}
		ps := make([]objects.OID, 0, len(le.Parents))
		for _, s := range le.Parents {
			p, err := objects.ParseOID(s)
			if err != nil {
				return nil, nil, false, fmt.Errorf("catalog entry %s: parent %q: %w", le.Event, s, err)
			}
			ps = append(ps, p)
		}
		nodes[i].Parents = uniqueOIDs(ps)
	}
	return res, nodes, true, nil
}
