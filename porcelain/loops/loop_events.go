package loops

import (
	"math"
	"strconv"
	"time"

	"github.com/tinehq/tine/loop"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// Loop event phases (attributes.phase) and kinds.
const (
	LoopPhaseInit      = "init"
	LoopPhaseIteration = "iteration"
	LoopPhaseGate      = "gate"
	LoopPhaseDone      = "done"

	LoopKindLoop   = "loop"
	LoopKindPolicy = "policy"
	LoopKindDone   = "done"
)

// maxInlinePayload bounds the metadata and outputs an iteration event holds
// inline; larger ones go to the event's artifact_blob as canonical JSON.
const maxInlinePayload = 64 << 10

// m builds an object member.
func m(k string, v objects.Value) objects.Member { return objects.Member{Key: k, Value: v} }

// numValue is f as JSON: a number when finite, else the sanitizer's text
// ("NaN", "Infinity", "-Infinity"), since canonical JSON has no such number.
func numValue(f float64) objects.Value {
	switch {
	case math.IsNaN(f):
		return objects.String("NaN")
	case math.IsInf(f, 1):
		return objects.String("Infinity")
	case math.IsInf(f, -1):
		return objects.String("-Infinity")
	}
	return objects.Float(f)
}

// loopNumberText renders f for reasons and summaries.
func loopNumberText(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// seconds is d in seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// stateMembers describes a snapshot: its digest over the whole state, its
// size, and whether the stored blob is a truncation marker.
func stateMembers(s loop.Snapshot) []objects.Member {
	out := []objects.Member{
		m("state_digest", objects.String(s.Digest.String())),
		m("state_size", objects.Int(int64(s.Size))),
	}
	if s.Truncated {
		out = append(out, m("state_truncated", objects.Bool(true)))
	}
	return out
}

// policyValue is the effective policy, null for an unset bound.
func policyValue(p loop.Policy) objects.Value {
	opt := func(f *float64) objects.Value {
		if f == nil {
			return objects.Null()
		}
		return numValue(*f)
	}
	zeroNull := func(f float64) objects.Value {
		if f == 0 {
			return objects.Null()
		}
		return numValue(f)
	}
	return objects.ObjectValue(
		m("max_steps", objects.Int(int64(p.MaxSteps))),
		m("max_cost", zeroNull(p.MaxCost)),
		m("max_duration_seconds", zeroNull(seconds(p.MaxDuration))),
		m("min_score", opt(p.MinScore)),
		m("target", opt(p.Target)),
		m("width", objects.Int(int64(p.Width))),
		m("max_branches", objects.Int(int64(p.MaxBranches))),
	)
}

// initPayload is the root event every branch shares: the goal, context,
// policy and initial state (loopforge.md §3.2 loop_init).
func initPayload(name string, s loop.StartRecord, blob *objects.Object) objects.Value {
	attrs := []objects.Member{
		m("phase", objects.String(LoopPhaseInit)),
		m("loop", objects.String(name)),
		m("branch", objects.String(s.RootBranch)),
		m("goal", objects.String(s.Goal)),
		m("context", objects.String(s.Context)),
		m("policy", policyValue(s.Policy)),
		m("sanitized", objects.Int(int64(s.Sanitized))),
	}
	attrs = append(attrs, stateMembers(s.Initial)...)
	return objects.ObjectValue(
		m("kind", objects.String(LoopKindLoop)),
		m("time_unix", runs.TimeValue(s.Time)),
		m("input_blob", objects.String(blob.ID.String())),
		m("attributes", objects.ObjectValue(attrs...)),
	)
}

// withBase makes the init payload p continue run base: its parents are
// base's tips, and attributes.base_run names base.
func withBase(p objects.Value, base *runs.Run) objects.Value {
	out := make([]objects.Member, 0, len(p.Object)+1)
	for _, mb := range p.Object {
		if mb.Key == "attributes" {
			mb.Value = objects.ObjectValue(append(mb.Value.Object[:len(mb.Value.Object):len(mb.Value.Object)],
				m("base_run", objects.String(base.ID.String())))...)
		}
		out = append(out, mb)
	}
	return objects.ObjectValue(append(out, m("parent_ids", runs.OIDValues(base.Tips)))...)
}

// candidatesValue lists the proposals with digest, delta and fate.
func candidatesValue(cs []loop.Candidate) objects.Value {
	out := make([]objects.Value, 0, len(cs))
	for _, c := range cs {
		ms := []objects.Member{
			m("index", objects.Int(int64(c.Index))),
			m("rank", objects.Int(int64(c.Rank))),
			m("score", numValue(c.Score)),
			m("outcome", objects.String(string(c.Outcome))),
			m("delta", objects.ObjectValue(
				m("added", runs.StringsValue(c.Delta.Added)),
				m("removed", runs.StringsValue(c.Delta.Removed)),
				m("changed", runs.StringsValue(c.Delta.Changed)),
				m("replaced", objects.Bool(c.Delta.Replaced)),
			)),
		}
		if c.Inherited {
			ms = append(ms, m("inherited", objects.Bool(true)))
		}
		if !c.State.Digest.IsZero() {
			ms = append(ms, m("digest", objects.String(c.State.Digest.String())), m("size", objects.Int(int64(c.State.Size))))
		}
		if c.BranchID != "" {
			ms = append(ms, m("branch", objects.String(c.BranchID)))
		}
		out = append(out, objects.ObjectValue(ms...))
	}
	return objects.Array(out...)
}

// iterationPayload is one executed step: the evaluated state as
// input_blob, score, observation, cost, duration, candidates and the
// step's metadata and outputs (inline, or as artifact_blob when large).
func iterationPayload(a objects.Algo, name string, it loop.IterationRecord, parent objects.OID, state *objects.Object) (objects.Value, []*objects.Object, error) {
	blobs := []*objects.Object{state}
	attrs := []objects.Member{
		m("phase", objects.String(LoopPhaseIteration)),
		m("loop", objects.String(name)),
		m("branch", objects.String(it.BranchID)),
		m("iteration", objects.Int(int64(it.Iteration))),
		m("branch_step", objects.Int(int64(it.BranchStep))),
		m("observation", objects.String(it.Observation)),
		m("score", numValue(it.Score)),
		m("stop", objects.Bool(it.Stop)),
		m("candidates", candidatesValue(it.Candidates)),
		m("best", objects.Bool(it.BestChanged)),
		m("total_steps", objects.Int(int64(it.TotalSteps))),
		m("total_cost", numValue(it.TotalCost)),
		m("sanitized", objects.Int(int64(it.Sanitized))),
	}
	if it.ParentBranch != "" {
		attrs = append(attrs, m("parent_branch", objects.String(it.ParentBranch)))
	}
	attrs = append(attrs, stateMembers(it.State)...)
	md, out := it.Metadata, it.Outputs
	if md.Kind != objects.KindObject {
		md = objects.ObjectValue()
	}
	if out.Kind != objects.KindObject {
		out = objects.ObjectValue()
	}
	extra := []objects.Member{}
	both := objects.ObjectValue(m("metadata", md), m("outputs", out))
	raw, err := objects.CanonV3(both)
	if err != nil {
		return objects.Value{}, nil, err
	}
	if len(raw) <= maxInlinePayload {
		attrs = append(attrs, m("metadata", md), m("outputs", out))
	} else {
		pb := objects.NewBlob(a, objects.RedactBlob(raw))
		blobs = append(blobs, pb)
		attrs = append(attrs, m("payload_in_artifact_blob", objects.Bool(true)))
		extra = append(extra, m("artifact_blob", objects.String(pb.ID.String())))
	}
	ms := []objects.Member{
		m("kind", objects.String(LoopKindLoop)),
		m("parent_ids", runs.OIDValues([]objects.OID{parent})),
		m("time_unix", runs.TimeValue(it.Started)),
		m("duration", objects.Float(nonNegative(seconds(it.Duration)))),
		m("cost", objects.Float(nonNegative(it.Cost))),
		m("input_blob", objects.String(state.ID.String())),
		m("attributes", objects.ObjectValue(attrs...)),
	}
	if u := it.Usage; !u.IsZero() {
		// OpenTine's token dimensions: input, cache_read and output are
		// exclusive, total is their sum (what tine log counts).
		in, cached, out := max(u.Input, 0), max(u.CacheRead, 0), max(u.Output, 0)
		ms = append(ms, m("usage", objects.ObjectValue(m("input", objects.Int(in)), m("cache_read", objects.Int(cached)),
			m("output", objects.Int(out)), m("total", objects.Int(in+cached+out)))))
	}
	if it.Model != "" {
		ms = append(ms, m("model", objects.String(it.Model)), m("provider", objects.String(it.Provider)))
	}
	return objects.ObjectValue(append(ms, extra...)...), blobs, nil
}

// nonNegative clamps a meter to a finite value >= 0 (SPEC §1.5.2).
func nonNegative(f float64) float64 {
	if f > 0 && !math.IsInf(f, 1) {
		return f
	}
	return 0
}

// policyPayload is the policy gate: which bound ended the branch, its
// limit and what was used.
func policyPayload(name string, e loop.EndRecord, p loop.Policy, totalSteps int, parent objects.OID, at time.Time) objects.Value {
	var limit, used objects.Value = objects.Null(), objects.Null()
	switch e.Gate {
	case loop.GateMaxSteps:
		limit, used = objects.Int(int64(p.MaxSteps)), objects.Int(int64(totalSteps))
	case loop.GateMaxCost:
		limit, used = numValue(p.MaxCost), numValue(e.TotalCost)
	case loop.GateMaxDuration:
		limit, used = numValue(seconds(p.MaxDuration)), numValue(seconds(e.Elapsed))
	case loop.GateMinScore:
		if p.MinScore != nil {
			limit = numValue(*p.MinScore)
		}
		used = numValue(e.Score)
	case loop.GatePruned:
		limit = objects.Int(int64(p.MaxBranches))
		used = numValue(e.Score)
	}
	return objects.ObjectValue(
		m("kind", objects.String(LoopKindPolicy)),
		m("parent_ids", runs.OIDValues([]objects.OID{parent})),
		m("time_unix", runs.TimeValue(at)),
		m("attributes", objects.ObjectValue(
			m("phase", objects.String(LoopPhaseGate)),
			m("loop", objects.String(name)),
			m("branch", objects.String(e.BranchID)),
			m("gate", objects.String(string(e.Gate))),
			m("reason", objects.String(e.Reason)),
			m("limit", limit),
			m("used", used),
			m("iteration", objects.Int(int64(e.Iteration))),
			m("steps", objects.Int(int64(e.Steps))),
			m("elapsed_seconds", numValue(seconds(e.Elapsed))),
			m("total_cost", numValue(e.TotalCost)),
		)),
	)
}

// donePayload closes a branch with its gate and reason; a branch that
// adopted a state it never evaluated carries it as input_blob.
func donePayload(name string, e loop.EndRecord, parent objects.OID, at time.Time, adopted *loop.Snapshot, blob *objects.Object) objects.Value {
	attrs := []objects.Member{
		m("phase", objects.String(LoopPhaseDone)),
		m("loop", objects.String(name)),
		m("branch", objects.String(e.BranchID)),
		m("gate", objects.String(string(e.Gate))),
		m("reason", objects.String(e.Reason)),
		m("iteration", objects.Int(int64(e.Iteration))),
		m("steps", objects.Int(int64(e.Steps))),
		m("score", numValue(e.Score)),
	}
	ms := []objects.Member{
		m("kind", objects.String(LoopKindDone)),
		m("parent_ids", runs.OIDValues([]objects.OID{parent})),
		m("time_unix", runs.TimeValue(at)),
	}
	if adopted != nil && blob != nil {
		attrs = append(attrs, stateMembers(*adopted)...)
		ms = append(ms, m("input_blob", objects.String(blob.ID.String())))
	}
	if e.Err != "" {
		ms = append(ms, m("error", objects.String(e.Err)))
	}
	return objects.ObjectValue(append(ms, m("attributes", objects.ObjectValue(attrs...)))...)
}

// runLoopValue is a branch run's "loop" member: which loop and branch, how
// it ended (the gate the run is tagged with), and on the best branch after
// Finish the loop's result.
func (lr *LoopRecorder) runLoopValue(b *loopBranch, withResult bool) objects.Value {
	ms := []objects.Member{
		m("name", objects.String(lr.opt.Name)),
		m("branch", objects.String(b.id)),
		m("goal", objects.String(lr.start.Goal)),
		m("steps", objects.Int(int64(b.steps))),
	}
	if b.parent != "" {
		ms = append(ms, m("parent_branch", objects.String(b.parent)), m("from_iteration", objects.Int(int64(b.fromIter))))
	}
	if b.ended {
		ms = append(ms, m("gate", objects.String(string(b.gate))), m("reason", objects.String(b.reason)))
	}
	if withResult && b.result.Kind == objects.KindObject {
		ms = append(ms, m("result", b.result))
	}
	return objects.ObjectValue(ms...)
}

// resultValue summarizes a finished loop.
func resultValue(f loop.FinishRecord) objects.Value {
	ms := []objects.Member{
		m("gate", objects.String(string(f.Gate))),
		m("total_steps", objects.Int(int64(f.TotalSteps))),
		m("total_cost", numValue(f.TotalCost)),
		m("elapsed_seconds", numValue(seconds(f.Elapsed))),
		m("branches", objects.Int(int64(len(f.Branches)))),
		m("sanitized", objects.Int(int64(f.Sanitized))),
		m("step_errors", objects.Int(int64(f.StepErrors))),
	}
	if f.Best != nil {
		ms = append(ms, m("best", objects.ObjectValue(
			m("branch", objects.String(f.Best.BranchID)),
			m("iteration", objects.Int(int64(f.Best.Iteration))),
			m("branch_step", objects.Int(int64(f.Best.BranchStep))),
			m("score", numValue(f.Best.Score)),
			m("state_digest", objects.String(f.Best.Digest.String())),
			m("observation", objects.String(f.Best.Observation)),
		)))
	}
	return objects.ObjectValue(ms...)
}
