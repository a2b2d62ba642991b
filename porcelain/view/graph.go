package view

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Errors of the view package.
var (
	// ErrRevsAndAll means revisions were named together with --all.
	ErrRevsAndAll = errors.New("revisions and --all cannot be combined")
	// ErrTooManyEdges means a Mermaid drawing would exceed Mermaid's edge
	// limit even with its linear chains collapsed.
	ErrTooManyEdges = errors.New("too many edges for mermaid")
)

// GraphOptions chooses the runs of a graph.
type GraphOptions struct {
	// Revs name the runs; none means runs.DefaultRef. Not with All.
	Revs []string
	// All takes every run a heads/, experiments/, promotions/, tags/ or
	// remotes/ ref points at.
	All bool
}

// Graph is the event DAG of some runs: the events newest first, children
// before parents (runs.Log's order), and the runs with their refs,
// statuses, forks and evaluation scores.
type Graph struct {
	Runs   []GraphRun      `json:"runs"`
	Events []runs.LogEntry `json:"events"`

	// nodes are the events as RenderGraph takes them, in Events' order.
	nodes []runs.GraphNode
}

// GraphRun is one run of a graph.
type GraphRun struct {
	// Ref names the run; "" for a run no ref points at now (REF~N).
	Ref    string `json:"ref,omitempty"`
	Run    string `json:"run"`
	Status string `json:"status"`
	Events int    `json:"events"`
	// Tips are the run's newest events.
	Tips []string `json:"tips"`
	// ForkedFrom is the run and event the run was forked from.
	ForkedFrom *Fork `json:"forked_from,omitempty"`
	// Scores are the scores of the evaluations of the run, by name then
	// attestation.
	Scores []RunScore `json:"scores,omitempty"`
}

// Fork is where a run was forked from: the source run and the fork event.
type Fork struct {
	Run    string `json:"run"`
	Event  string `json:"event"`
	Reason string `json:"reason,omitempty"`
}

// RunScore is one score of one evaluation attestation of a run.
type RunScore struct {
	Name        string  `json:"name"`
	Value       float64 `json:"value"`
	Signer      string  `json:"signer,omitempty"`
	Attestation string  `json:"attestation"`
}

// BuildGraph reads the runs opt names and their events (each event once,
// however many runs share it) and the scores of their evaluations.
func BuildGraph(ctx context.Context, r *plumbing.Repo, opt GraphOptions) (*Graph, error) {
	if opt.All && len(opt.Revs) > 0 {
		return nil, ErrRevsAndAll
	}
	if opt.All {
		g, ok, err := graphFromCatalog(ctx, r)
		if err != nil || ok {
			return g, err
		}
	}
	var named []runs.NamedRun
	var err error
	if opt.All {
		named, err = runs.AllRuns(ctx, r.Objects(), r.Refs())
	} else {
		revs := opt.Revs
		if len(revs) == 0 {
			revs = []string{runs.DefaultRef}
		}
		named, err = runs.ResolveRuns(ctx, r, revs)
	}
	if err != nil {
		return nil, err
	}
	res, nodes, err := runs.LogRuns(ctx, r.Objects(), named, 0)
	if err != nil {
		return nil, err
	}
	cat, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	g := &Graph{Runs: make([]GraphRun, 0, len(named)), Events: res.Entries, nodes: nodes}
	for _, n := range named {
		g.Runs = append(g.Runs, graphRun(cat, n))
	}
	return g, nil
}

// graphFromCatalog is BuildGraph of every run served by the catalog
// (runs.LogAllNodes): the events and the runs are described by the
// catalog, which reads no run object and no event it holds whole (a
// run whose fork it does not hold is read on its own and let go), so
// what is held grows with the events shown, not with every run's event
// list (50 forks of a 30,000-event run held 50 lists of 30,000 oids, and
// reading them filled the store's caches). ok is false when the catalog
// cannot serve it.
func graphFromCatalog(ctx context.Context, r *plumbing.Repo) (*Graph, bool, error) {
	cat, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, false, nil // the direct path reports it
	}
	res, nodes, ok, err := runs.LogAllNodes(ctx, cat, r.Objects())
	if err != nil || !ok {
		return nil, false, err
	}
	g := &Graph{Runs: make([]GraphRun, 0, len(res.Runs)), Events: res.Entries, nodes: nodes}
	for _, lr := range res.Runs {
		id, err := objects.ParseOID(lr.Run)
		if err != nil {
			return nil, false, fmt.Errorf("ref %s: %w", lr.Ref, err)
		}
		if gr, ok := catalogRun(cat, lr.Ref, id); ok {
			g.Runs = append(g.Runs, gr)
			continue
		}
		o, err := r.Objects().Get(ctx, id)
		if err != nil {
			return nil, false, fmt.Errorf("ref %s: run %s: %w", lr.Ref, id, err)
		}
		run, err := runs.RunFromObject(o)
		if err != nil {
			return nil, false, fmt.Errorf("ref %s: %w", lr.Ref, err)
		}
		g.Runs = append(g.Runs, graphRun(cat, runs.NamedRun{Ref: lr.Ref, Run: run}))
	}
	return g, true, nil
}

// catalogRun describes run id, named by ref, from cat: what graphRun
// takes from the run object, when cat holds the run (status, event list
// and tips) and its fork whole.
func catalogRun(cat *index.Catalog, ref string, id objects.OID) (GraphRun, bool) {
	re, found := cat.Run(id)
	if !found || !re.Exact || !re.ForkExact {
		return GraphRun{}, false
	}
	gr := GraphRun{Ref: ref, Run: id.String(), Status: re.Status, Events: len(re.Events),
		Tips: make([]string, 0, len(re.Tips)), Scores: runScores(cat, id)}
	if f := re.Fork; f != nil {
		gr.ForkedFrom = &Fork{Run: f.Run.String(), Event: f.Event.String(), Reason: f.Reason}
	}
	for _, p := range re.Tips {
		gr.Tips = append(gr.Tips, cat.EventAt(int(p)).ID.String())
	}
	return gr, true
}

// graphRun describes one run of a graph.
func graphRun(cat *index.Catalog, n runs.NamedRun) GraphRun {
	run := n.Run
	gr := GraphRun{Ref: n.Ref, Run: run.ID.String(), Status: run.Status, Events: len(run.EventIDs()),
		Tips: make([]string, 0, len(run.Tips)), Scores: runScores(cat, run.ID)}
	if f := run.ForkedFrom; f != nil {
		gr.ForkedFrom = &Fork{Run: f.Run.String(), Event: f.Event.String(), Reason: f.Reason}
	}
	for _, t := range run.Tips {
		gr.Tips = append(gr.Tips, t.String())
	}
	return gr
}

// runScores lists the scores of the evaluations of run in the catalog.
func runScores(cat *index.Catalog, run objects.OID) []RunScore {
	var out []RunScore
	for _, a := range cat.AttestationsFor(run) {
		if a.Kind != index.KindEvaluation {
			continue
		}
		for _, s := range a.Scores {
			out = append(out, RunScore{Name: s.Name, Value: s.Value, Signer: a.Signer, Attestation: a.ID.String()})
		}
	}
	slices.SortFunc(out, func(x, y RunScore) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Attestation, y.Attestation))
	})
	return out
}
