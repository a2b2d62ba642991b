// Package loop is tine's improvement-loop engine: branchable loops in the
// style of loopforge (SPEC: spec/loopforge.md, with the seed README's
// behaviour winning where the two differ), as pure logic with no storage.
//
// A loop starts from a goal, a context and an initial state. Each iteration
// pops the oldest live branch (first in, first out), asks a Step to evaluate
// that branch's state, and the Step answers with an observation, a score,
// a stop flag, metadata, a cost and proposed next states. The best proposal
// (highest score, input order on ties) continues the branch; up to Width-1
// further proposals fork new branches. When more than MaxBranches branches
// are live, the lowest scored are pruned. A branch ends, checked in this
// order, at a budget gate (max-steps, max-cost, max-duration), at min-score,
// at its step's stop flag or the target score, or when it proposes nothing.
//
// The engine never touches storage. Everything worth keeping is handed to a
// Recorder as plain records (Start, Iteration, Fork, End, Finish); the clock
// is injected (Config.Now) and the engine uses no randomness, so the same
// Step gives the same trace every time. Payloads reaching a Recorder are
// sanitized (Sanitize) and states carry a digest over their whole canonical
// form (Snapshot), so recording never fails on the caller's data.
//
// Built-in steps: Numeric and Text reproduce loopforge's numeric_refinement
// and text_rewrite strategies; StepCmd runs any program speaking the
// tine-step/1 JSON protocol (see stepcmd.go), the model-agnostic way to put
// an LLM or a test suite in the loop; HTTPStep sends the same request to a
// model behind an OpenAI-compatible chat completions API (stephttp.go) and
// reports the call's token usage.
//
// Deliberate differences from the published loopforge 0.2.1 code
// (loopforge.md §1.3-§1.5):
//
//   - Budgets are run-wide. max-steps counts every executed step of every
//     branch once (published: a per-branch counter that forks restart, plus
//     a separate global cap); max-cost sums every step's cost exactly once
//     (published: the step's cost was added twice and forks inherited their
//     parent's spend); max-duration is measured after the step, on the
//     injected clock. A budget is exhausted when used >= limit; the step
//     that exhausts it ends its branch with the gate and every other live
//     branch ends with the same gate without taking another step.
//   - The engine-level and run-level policy are one Policy (published: the
//     budget gate read the constructor's policy, min-score the run's).
//   - Best selection compares against the best snapshot's score, so a best
//     branch that keeps improving refreshes the snapshot (published: the
//     incumbent compared against its own just-overwritten score and never
//     refreshed best_step_result). Result.Best is an immutable snapshot of
//     the state that was scored; Result.Branches holds the live branches.
//   - Every branch ends exactly once with a recorded reason, including
//     pruned branches and branches still queued when a budget ran out
//     (published: left "running" with no done step).
//   - A failing Step ends only its branch with reason "error"; the failure
//     does not count as a step (as published) but the run's error count
//     is reported. Non-numeric or missing proposal scores cannot raise out
//     of Run: a missing score inherits the step's score, a NaN one sorts
//     last.
//   - The step that exhausts a budget forks nothing, so golden traces have
//     one branch fewer than the digest's counts; a step whose proposals
//     all lack a state ends with no-next-state (published: silently
//     dropped).
//   - Proposed states are deep-copied when a branch adopts them, so
//     branches never share mutable state (published: a shallow dict copy).
//
// Kept on purpose, because the golden traces depend on them: fork ids
// "alt-b2", "alt-b4", ... (a shared counter that advanced twice per fork);
// StepInput.BranchStep restarting at 1 in a fork; the continuing branch
// keeping its measured score for pruning while a fork carries its proposed
// score; stable descending sorts for fan-out and pruning; a proposal with
// no state using up a width slot.
package loop
