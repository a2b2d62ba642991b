package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
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
	// Direct makes All read every run and event instead of serving the
	// listing from the catalog (log_catalog.go): the same result, slower;
	// a check of the catalog path.
	Direct bool
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
	// Command is a recorded command's attributes.argv as a shell command
	// line, at most 200 characters (then "...").
	Command string   `json:"command,omitempty"`
	Parents []string `json:"parents"`
	Refs    []string `json:"refs,omitempty"`
	Missing bool     `json:"missing,omitempty"`
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
// ordered children first, newest time_unix first, then by oid (events
// without time_unix last, the last met first: mergedOrder). Refs are
// decorated at the tips of their runs.
//
// Only the events shown are read: a run's event list gives the order, so
// -n N reads N events. All is served from the catalog, reading no run and
// no event it holds whole (log_catalog.go); with Direct, or when the
// catalog cannot serve it, every event of the union is read once, however
// many runs share it (see lazy.go).
func Log(ctx context.Context, r *plumbing.Repo, opt LogOptions) (*LogResult, error) {
	if opt.All && opt.Rev != "" {
		return nil, fmt.Errorf("a revision and --all cannot be combined")
	}
	var res *LogResult
	var nodes []GraphNode
	var err error
	if opt.All && !opt.Direct {
		res, parents, ok, err := logAllCatalog(ctx, r, r.Objects(), opt.Limit)
		if err != nil {
			return nil, err
		}
		if ok {
			if opt.Graph {
				res.Graph = renderLanes(nil, parents)
			}
			return res, nil
		}
	}
	if opt.All {
		res, nodes, err = logAll(ctx, r.Objects(), r.Refs(), opt.Limit)
	} else {
		res, nodes, err = logRun(ctx, r, r.Objects(), OrDefault(opt.Rev, DefaultRef), opt.Limit)
	}
	if err != nil {
		return nil, err
	}
	if opt.Graph {
		res.Graph = RenderGraph(nodes)
	}
	return res, nil
}

// logRun lists one run's newest limit events (all when limit is 0),
// reading only those, through g.
func logRun(ctx context.Context, r *plumbing.Repo, g objects.Getter, rev string, limit int) (*LogResult, []GraphNode, error) {
	if res, nodes, ok, err := logRunIndexed(ctx, r, g, rev, limit); ok {
		return res, nodes, err
	}
	run, ref, err := resolveRunHead(ctx, r, g, rev)
	if err != nil {
		return nil, nil, err
	}
	// REF~N and REF@{n} name a run the ref no longer points at: its
	// tips are not the ref's, so they are not decorated with it.
	if cur, err := r.Refs().Read(ctx, ref); ref != "" && (err != nil || cur != run.ID) {
		ref = ""
	}
	ids, err := newEventList(run)
	if err != nil {
		return nil, nil, err
	}
	res := &LogResult{Runs: []LogRun{{Ref: ref, Run: run.ID.String(), Status: run.Status, Events: ids.Len()}}, Entries: []LogEntry{}}
	deco := map[objects.OID][]string{}
	if ref != "" {
		for _, t := range run.Tips {
			deco[t] = append(deco[t], ref)
		}
	}
	n := ids.Len()
	if limit > 0 && limit < n {
		n = limit
	}
	nodes := make([]GraphNode, 0, n)
	for k := 0; k < n; k++ {
		id, err := ids.At(ids.Len() - 1 - k)
		if err != nil {
			return nil, nil, err
		}
		e, err := runEvent(ctx, g, run, id)
		if err != nil {
			return nil, nil, err
		}
		res.Entries = append(res.Entries, detached(logEntry(e, deco[e.ID])))
		nodes = append(nodes, GraphNode{ID: e.ID, Parents: e.Parents})
	}
	return res, nodes, nil
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

// EntryOf describes one event as log does, without refs.
func EntryOf(e *Event) LogEntry { return logEntry(e, nil) }

// logEntry describes one event.
func logEntry(e *Event, refNames []string) LogEntry {
	le := LogEntry{Event: e.ID.String(), Short: Short(e.ID), Kind: e.Kind, Model: e.Model, Tool: e.Tool,
		Label: e.Label(), Cost: e.Cost, Duration: e.Duration, Tokens: e.Tokens(), Score: e.Score,
		Error: e.Error, Command: eventCommand(e), Parents: []string{}, Refs: refNames, Missing: e.Missing}
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
