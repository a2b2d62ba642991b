package agents

import (
	"context"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/gates"
	"github.com/tinehq/tine/porcelain/loops"
	"github.com/tinehq/tine/porcelain/runs"
)

// readTools are the tools that write nothing.
func (s *Server) readTools() []adder {
	return []adder{
		tool(s, "list_refs", "List refs", "List refs (OID, type, name) sorted by name, optionally under a prefix such as experiments/ or heads/.", readTool, listRefs),
		tool(s, "log", "Log a run", "List a run's events newest first (kind, model or tool, cost, duration, tokens, score, parents), or with all=true every ref's run as one DAG. Same as `tine log --json`.", readTool, logRun),
		tool(s, "show", "Show an object", "Show any object by revision: a run with totals, an event with previews of its blobs, an attestation or annotation payload, or a verified prefix of a blob (max_bytes). Every read re-hashes the object.", readTool, s.show),
		tool(s, "context", "Context of an event", "The context slice of an event: the event and its ancestors through parent and causal links, breadth first to a depth, each with its payload and blob previews.", readTool, s.context),
		tool(s, "diff", "Diff two runs", "Semantic diff of two runs: shared and divergent events, aligned pairs with changed fields, cost, token and tool-path deltas. Same as `tine diff --json`.", readTool, diffRuns),
		tool(s, "loop_show", "Show a loop", "Read a recorded improvement loop back: iterations with branch, score and observation, the score curve, the best score and the gate that ended each branch.", readTool, loopShow),
		tool(s, "gate_status", "Gate status", "Freshness of every constraint of the operator's gate contract: fresh evidence with its verdict, stale (and why) or missing. Executes nothing.", readTool, s.gateStatus),
	}
}

// refsIn is list_refs' input.
type refsIn struct {
	Prefix string `json:"prefix,omitempty" max:"512" jsonschema:"only refs at or under this prefix, e.g. experiments/ or heads/"`
	Limit  int    `json:"limit,omitempty" max:"10000" jsonschema:"at most this many refs (default 1000)"`
}

// refsOut is list_refs' result.
type refsOut struct {
	*plumbing.ListRefsResult
	Truncated bool `json:"truncated,omitempty"`
}

// listRefs is plumbing.ListRefs (tine refs), cut at the limit.
func listRefs(ctx context.Context, r *plumbing.Repo, in refsIn) (any, error) {
	res, err := plumbing.ListRefs(ctx, r, plumbing.ListRefsOptions{Prefix: in.Prefix})
	if err != nil {
		return nil, err
	}
	limit := orInt(in.Limit, 1000)
	out := refsOut{ListRefsResult: res}
	if len(res.Refs) > limit {
		res.Refs, out.Truncated = res.Refs[:limit], true
	}
	return out, nil
}

// logIn is log's input.
type logIn struct {
	Rev   string `json:"rev,omitempty" max:"1024" jsonschema:"run revision: ref, oid, prefix, REF~N or REF@{n} (default heads/main)"`
	All   bool   `json:"all,omitempty" max:"0" jsonschema:"every ref's run as one DAG (no rev)"`
	Limit int    `json:"limit,omitempty" max:"10000" jsonschema:"at most this many events (default 100)"`
}

// logRun is runs.Log (tine log).
func logRun(ctx context.Context, r *plumbing.Repo, in logIn) (any, error) {
	return runs.Log(ctx, r, runs.LogOptions{Rev: in.Rev, All: in.All, Limit: orInt(in.Limit, 100)})
}

// diffIn is diff's input.
type diffIn struct {
	A    string `json:"a" max:"1024" jsonschema:"first run revision"`
	B    string `json:"b" max:"1024" jsonschema:"second run revision"`
	Text bool   `json:"text,omitempty" max:"0" jsonschema:"add bounded unified diffs of differing output and stderr blobs"`
}

// diffRuns is runs.DiffRevisions (tine diff); .tine file paths are not
// accepted here, an agent names runs in the repository only.
func diffRuns(ctx context.Context, r *plumbing.Repo, in diffIn) (any, error) {
	return runs.DiffRevisions(ctx, r, in.A, in.B, runs.DiffOptions{Text: in.Text})
}

// loopIn is loop_show's input.
type loopIn struct {
	Loop string `json:"loop" max:"240" jsonschema:"loop name (its branches are experiments/LOOP/...)"`
}

// loopShow is loops.LoopShow (tine loop show).
func loopShow(ctx context.Context, r *plumbing.Repo, in loopIn) (any, error) {
	return loops.LoopShow(ctx, r, in.Loop)
}

// gateIn is gate_status' input.
type gateIn struct {
	Phase string `json:"phase,omitempty" max:"16" enum:"change|stop|push|ci" jsonschema:"phase whose waiver policy applies (default stop)"`
}

// gateStatus is gates.GateStatus (tine gate status) over the operator's
// project directory.
func (s *Server) gateStatus(ctx context.Context, r *plumbing.Repo, in gateIn) (any, error) {
	return gates.GateStatus(ctx, r, gates.GateStatusOptions{Root: s.opt.GateProject, Phase: gates.GatePhase(in.Phase)})
}

// orInt is n, or def when n is 0.
func orInt(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}
