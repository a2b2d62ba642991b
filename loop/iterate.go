package loop

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// iterate runs one step of branch b: the step, accounting, best selection,
// the stop checks in SPEC order (loopforge.md §1.4: budget gate, min-score,
// stop or target, no next state), then fan-out and pruning. A non-empty
// Gate means a budget ran out and the run is over.
func (e *engine) iterate(ctx context.Context, b *branch) (Gate, error) {
	started := e.tick()
	in := StepInput{Goal: e.cfg.Goal, Context: e.cfg.Context, Iteration: e.steps + 1, BranchStep: b.Steps + 1,
		BranchID: b.ID, ParentBranch: b.Parent, Elapsed: elapsedSince(started, e.start),
		TotalCost: e.cost, BranchCost: b.Cost}
	if e.best != nil {
		in.BestScore, in.HasBest = e.best.Score, true
	}
	// The step gets its own copy so nothing it does can reach the branch;
	// b.state was copied on adoption, so it cannot be too deep here.
	in.State, _ = cloneValue(b.state)
	res, stepErr := e.cfg.Step(ctx, in)
	done := e.tick()
	elapsed := elapsedSince(done, e.start)
	if stepErr != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// loopforge.md §1.3 step 2: a failing step drops its branch and
		// is not counted as a step.
		e.res.StepErrors++
		if err := e.end(ctx, b, GateError, "step failed: "+stepErr.Error(), stepErr.Error()); err != nil {
			return "", err
		}
		if g, why, ok := e.policy.budgetGate(e.steps, e.cost, elapsed); ok {
			e.stopReason = why
			return g, nil
		}
		return "", nil
	}

	cost, badCost := clampCost(res.Cost)
	e.steps++
	e.cost += cost
	b.Steps++
	b.Cost += cost
	b.Score = res.Score
	b.LastIteration = e.steps

	bestChanged := betterThan(res.Score, e.best)
	if bestChanged {
		st, _ := cloneValue(b.state)
		e.best = &BestSnapshot{BranchID: b.ID, Iteration: e.steps, BranchStep: b.Steps, Score: res.Score,
			State: st, Observation: res.Observation}
	}

	gate, reason := e.stopCheck(b, res, elapsed)
	p := e.plan(b, res, gate != "")
	if gate == "" && p.cont < 0 {
		gate, reason = GateNoNextState, "no next state proposed from branch '"+b.ID+"'"
	}

	if e.cfg.Recorder != nil {
		rec, n := e.iterationRecord(b, res, cost, badCost, started, done, p, bestChanged)
		if err := e.count("iteration "+strconv.Itoa(e.steps)+" of branch "+b.ID, n); err != nil {
			return "", err
		}
		if bestChanged {
			e.best.Digest = rec.State.Digest
		}
		if err := e.cfg.Recorder.Iteration(ctx, rec); err != nil {
			return "", fmt.Errorf("%w: iteration %d of branch %s: %w", ErrRecorder, e.steps, b.ID, err)
		}
	}
	if gate != "" {
		if err := e.end(ctx, b, gate, reason, ""); err != nil {
			return "", err
		}
		if gate.IsBudget() {
			e.stopReason = reason
			return gate, nil
		}
		return "", nil
	}
	if err := e.adopt(ctx, b, p); err != nil {
		return "", err
	}
	return "", e.prune(ctx)
}

// stopCheck applies the per-step stop order up to (not including) the
// no-next-state check, which needs the fan-out plan.
func (e *engine) stopCheck(b *branch, res StepResult, elapsed time.Duration) (Gate, string) {
	if g, why, ok := e.policy.budgetGate(e.steps, e.cost, elapsed); ok {
		return g, why
	}
	if m := e.policy.MinScore; m != nil && res.Score >= *m {
		return GateMinScore, "reached min-score " + formatFloat(*m) + " at score=" + formatFloat(res.Score)
	}
	if res.Stop {
		return GateStop, fmt.Sprintf("stopping branch '%s' at score=%s", b.ID, formatFloat(res.Score))
	}
	if t := e.policy.Target; t != nil && res.Score >= *t {
		return GateTarget, fmt.Sprintf("branch '%s' reached target %s at score=%s", b.ID, formatFloat(*t), formatFloat(res.Score))
	}
	return "", ""
}

// tick reads the injected clock once and remembers the reading, so records
// written in between reuse it and a fake clock advances predictably.
func (e *engine) tick() time.Time {
	e.now = e.cfg.Now()
	return e.now
}

// fifo is the first-in first-out queue of live branches.
type fifo struct {
	items []*branch
	head  int
}

func (q *fifo) len() int { return len(q.items) - q.head }

func (q *fifo) push(b *branch) { q.items = append(q.items, b) }

func (q *fifo) pop() *branch {
	b := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head > 64 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	return b
}

// live returns the queued branches in order.
func (q *fifo) live() []*branch { return q.items[q.head:] }

// reset replaces the queue's contents.
func (q *fifo) reset(bs []*branch) {
	q.items = append(q.items[:0], bs...)
	q.head = 0
}
