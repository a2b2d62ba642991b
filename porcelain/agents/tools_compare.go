package agents

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/compare"
	"github.com/tinehq/tine/porcelain/trust"
)

// compareTools are the read tools over porcelain/compare: the runs table
// and event search. Both answer from the derived catalog, which they bring
// up to date first (derived files only, like the CLI verbs).
func (s *Server) compareTools() []adder {
	return []adder{
		tool(s, "runs", "Runs table", "The runs table: one row per run a heads/, experiments/ or promotions/ ref names, with status, events, cost, tokens, duration, the newest trusted score of each metric, gate decision, promotions and parameters; sort, filter (COL OP VALUE), only-changed columns and deltas to a baseline run. Same as `tine runs --json`.", readTool, s.runsTable),
		tool(s, "search", "Search events", "Find events of ref'd runs by the words of their payload and blobs (every word must occur, whole words, case-insensitive); each hit is re-checked against its verified objects. Same as `tine search --json`.", readTool, search),
	}
}

// runsIn is runs' input.
type runsIn struct {
	SortBy      string   `json:"sort_by,omitempty" max:"256" jsonschema:"column to sort by (a metric, a parameter, cost, ...)"`
	Desc        bool     `json:"desc,omitempty" max:"0" jsonschema:"sort descending"`
	Filters     []string `json:"filters,omitempty" max:"32" jsonschema:"keep rows where every COL OP VALUE holds (OP: = != < <= > >= ~ !~), e.g. accuracy>=0.9 or ref~experiments/tune/*"`
	OnlyChanged bool     `json:"only_changed,omitempty" max:"0" jsonschema:"drop columns whose value is the same in every row"`
	Baseline    string   `json:"baseline,omitempty" max:"1024" jsonschema:"a run revision: show each numeric cell's difference to it"`
	Remotes     bool     `json:"remotes,omitempty" max:"0" jsonschema:"include runs remotes/ tracking refs name"`
	Signer      string   `json:"signer,omitempty" max:"256" jsonschema:"count only evaluations and gates by this signer"`
	Promotion   string   `json:"promotion,omitempty" max:"240" jsonschema:"count only the attestations the operator's release policy trusts for this promotion"`
	Limit       int      `json:"limit,omitempty" max:"10000" jsonschema:"at most this many rows (default 500)"`
}

// runsOut is the runs table, cut at the limit.
type runsOut struct {
	*compare.Table
	Truncated bool `json:"truncated,omitempty"`
}

// runsTable is compare.BuildTable (tine runs); the release policy and keys
// of promotion are the operator's, as for promote.
func (s *Server) runsTable(ctx context.Context, r *plumbing.Repo, in runsIn) (any, error) {
	opt := compare.TableOptions{SortBy: in.SortBy, Desc: in.Desc, OnlyChanged: in.OnlyChanged,
		Baseline: in.Baseline, Remotes: in.Remotes, Trust: compare.TrustAll(in.Signer)}
	for _, expr := range in.Filters {
		f, err := compare.ParseFilter(expr)
		if err != nil {
			return nil, err
		}
		opt.Filters = append(opt.Filters, f)
	}
	if in.Promotion != "" {
		if in.Signer != "" {
			return nil, fmt.Errorf("signer and promotion cannot be combined: the policy names its signers: %w", plumbing.ErrBadInput)
		}
		pt, err := trust.LoadPolicyTrust(r, s.opt.PolicyFile, in.Promotion, s.opt.KeyFiles)
		if err != nil {
			return nil, err
		}
		opt.Trust = compare.TrustPolicy(pt)
	}
	t, err := compare.BuildTable(ctx, r, opt)
	if err != nil {
		return nil, err
	}
	out := runsOut{Table: t}
	if limit := orInt(in.Limit, 500); len(t.Rows) > limit {
		t.Rows, out.Truncated = t.Rows[:limit], true
	}
	return out, nil
}

// searchIn is search's input.
type searchIn struct {
	Query string `json:"query" max:"1024" jsonschema:"words to find; every one must occur"`
	In    string `json:"in,omitempty" max:"16" enum:"input|output|all" jsonschema:"where to look: input, output or all (default all)"`
	Kind  string `json:"kind,omitempty" max:"256" jsonschema:"only events of this kind (tool, model, loop, ...)"`
	Ref   string `json:"ref,omitempty" max:"512" jsonschema:"only events of runs a matching ref names (a glob such as experiments/tune/*)"`
	Limit int    `json:"limit,omitempty" max:"1000" jsonschema:"at most this many events, newest first (default 50)"`
}

// search is compare.Search (tine search).
func search(ctx context.Context, r *plumbing.Repo, in searchIn) (any, error) {
	return compare.Search(ctx, r, compare.SearchOptions{Query: in.Query, In: in.In, Kind: in.Kind, RefGlob: in.Ref, Limit: in.Limit})
}
