package runs

import (
	"context"
	"fmt"
	"sort"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// LogOptions configures Log.
type LogOptions struct {
	// Rev names the run; empty means DefaultRef. Not allowed with All.
	Rev string
	// All logs the events of every ref's run as one DAG.
	All bool
	// Graph adds the lane drawing.
	Graph bool
	// Limit keeps the first Limit entries; 0 means all.
	Limit int
}

// LogEntry is one event of a log, newest first.
type LogEntry struct {
	Event    string   `json:"event"`
	Short    string   `json:"short"`
	Kind     string   `json:"kind,omitempty"`
	Model    string   `json:"model,omitempty"`
	Tool     string   `json:"tool,omitempty"`
	Label    string   `json:"label"`
	Cost     float64  `json:"cost"`
	Duration float64  `json:"duration"`
	Tokens   float64  `json:"tokens"`
	Score    *float64 `json:"score,omitempty"`
	TimeUnix *float64 `json:"time_unix,omitempty"`
	Error    string   `json:"error,omitempty"`
	ExitCode *int64   `json:"exit_code,omitempty"`
	Parents  []string `json:"parents"`
	Refs     []string `json:"refs,omitempty"`
	Missing  bool     `json:"missing,omitempty"`
}

// LogRun names one run a log covers.
type LogRun struct {
	Ref    string `json:"ref,omitempty"`
	Run    string `json:"run"`
	Status string `json:"status"`
	Events int    `json:"events"`
}

// LogResult is what `tine log` reports.
type LogResult struct {
	Runs    []LogRun    `json:"runs"`
	Entries []LogEntry  `json:"entries"`
	Graph   []GraphLine `json:"graph,omitempty"`
}

// Log lists the events of a run newest first (the reverse of the run's
// order), or with All the events of every run a heads/, experiments/,
// promotions/, tags/ or remotes/ ref points at, merged by oid into one DAG
// ordered children first, newest time_unix first, then by oid. Refs are
// decorated at the tips of their runs.
func Log(ctx context.Context, r *plumbing.Repo, opt LogOptions) (*LogResult, error) {
	if opt.All && opt.Rev != "" {
		return nil, fmt.Errorf("a revision and --all cannot be combined")
	}
	var runs []*Run
	var names []string
	if opt.All {
		var err error
		if runs, names, err = allRuns(ctx, r.Objects(), r.Refs()); err != nil {
			return nil, err
		}
	} else {
		run, ref, err := ResolveRun(ctx, r, OrDefault(opt.Rev, DefaultRef))
		if err != nil {
			return nil, err
		}
		// REF~N and REF@{n} name a run the ref no longer points at: its
		// tips are not the ref's, so they are not decorated with it.
		if cur, err := r.Refs().Read(ctx, ref); ref != "" && (err != nil || cur != run.ID) {
			ref = ""
		}
		runs, names = []*Run{run}, []string{ref}
	}
	res := &LogResult{Runs: []LogRun{}, Entries: []LogEntry{}}
	deco := map[objects.OID][]string{}
	for i, run := range runs {
		res.Runs = append(res.Runs, LogRun{Ref: names[i], Run: run.ID.String(), Status: run.Status, Events: len(run.Events)})
		if names[i] != "" {
			for _, t := range run.Tips {
				deco[t] = append(deco[t], names[i])
			}
		}
	}
	var order []*Event
	if opt.All {
		order = mergedOrder(runs)
	} else {
		for i := len(runs[0].Events) - 1; i >= 0; i-- {
			order = append(order, runs[0].Events[i])
		}
	}
	if opt.Limit > 0 && len(order) > opt.Limit {
		order = order[:opt.Limit]
	}
	nodes := make([]GraphNode, len(order))
	for i, e := range order {
		res.Entries = append(res.Entries, logEntry(e, deco[e.ID]))
		nodes[i] = GraphNode{ID: e.ID, Parents: e.Parents}
	}
	if opt.Graph {
		res.Graph = RenderGraph(nodes)
	}
	return res, nil
}

// allRuns loads the run of every ref that points at one, in ref order.
func allRuns(ctx context.Context, g objects.Getter, rl RefLister) ([]*Run, []string, error) {
	var runs []*Run
	var names []string
	err := ListRuns(ctx, rl, g, "", func(name string, run *Run) error {
		if refs.NamespaceOf(name) == refs.NamespaceAnnotations {
			return nil
		}
		if err := LoadEvents(ctx, g, run, nil); err != nil {
			return fmt.Errorf("ref %s: %w", name, err)
		}
		runs, names = append(runs, run), append(names, name)
		return nil
	})
	return runs, names, err
}

// mergedOrder returns the union of the runs' events, children before
// parents; among events whose children are all placed, the newest
// time_unix comes first, then the smallest oid (a deterministic order).
func mergedOrder(runs []*Run) []*Event {
	byID := map[objects.OID]*Event{}
	for _, run := range runs {
		for _, e := range run.Events {
			byID[e.ID] = e
		}
	}
	children := map[objects.OID]int{}
	for _, e := range byID {
		for _, p := range uniqueOIDs(e.Parents) {
			if _, ok := byID[p]; ok {
				children[p]++
			}
		}
	}
	var ready []*Event
	for id, e := range byID {
		if children[id] == 0 {
			ready = append(ready, e)
		}
	}
	out := make([]*Event, 0, len(byID))
	for len(ready) > 0 {
		sort.Slice(ready, func(i, j int) bool { return newerFirst(ready[i], ready[j]) })
		e := ready[0]
		ready = ready[1:]
		out = append(out, e)
		for _, p := range uniqueOIDs(e.Parents) {
			if pe, ok := byID[p]; ok {
				children[p]--
				if children[p] == 0 {
					ready = append(ready, pe)
				}
			}
		}
	}
	return out
}

// newerFirst orders by time_unix descending, then oid ascending.
func newerFirst(a, b *Event) bool {
	if a.TimeUnix != b.TimeUnix {
		return a.TimeUnix > b.TimeUnix
	}
	return a.ID.Compare(b.ID) < 0
}

// uniqueOIDs drops repeats (parent lists are unique when valid).
func uniqueOIDs(ids []objects.OID) []objects.OID {
	var out []objects.OID
	for _, id := range ids {
		if !ContainsOID(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// logEntry describes one event.
func logEntry(e *Event, refNames []string) LogEntry {
	le := LogEntry{Event: e.ID.String(), Short: Short(e.ID), Kind: e.Kind, Model: e.Model, Tool: e.Tool,
		Label: e.Label(), Cost: e.Cost, Duration: e.Duration, Tokens: e.Tokens(), Score: e.Score,
		Error: e.Error, Parents: []string{}, Refs: refNames, Missing: e.Missing}
	if e.HasTime {
		t := e.TimeUnix
		le.TimeUnix = &t
	}
	if c, ok := e.Attributes.Get("exit_code"); ok && c.Kind == objects.KindInt && c.Big == nil {
		v := c.Int
		le.ExitCode = &v
	}
	for _, p := range e.Parents {
		le.Parents = append(le.Parents, p.String())
	}
	return le
}
