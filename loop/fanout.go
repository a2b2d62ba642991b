package loop

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tinehq/tine/objects"
)

// plan is a step's fan-out decided before anything is recorded, so the
// Iteration record can say what became of every proposal.
type plan struct {
	// fate is indexed by proposal index.
	fate []fate
	// cont is the proposal index the branch continues with, -1 for none;
	// forks are the forking proposal indices in rank order.
	cont  int
	forks []int
}

// fate is one proposal's ranking and outcome.
type fate struct {
	rank      int
	score     float64
	inherited bool
	outcome   Outcome
	branchID  string
	state     objects.Value // the private copy a branch adopts
}

// byScoreDesc orders scores high to low with NaN last; used with a stable
// sort so ties keep their input order (loopforge.md §1.3 steps 10 and 12).
func byScoreDesc(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(b, a)
}

// plan ranks res's proposals and assigns outcomes: within the first Width
// ranks the first usable proposal continues b and the later ones fork. When
// ended is set the branch adopts nothing.
func (e *engine) plan(b *branch, res StepResult, ended bool) plan {
	p := plan{fate: make([]fate, len(res.Proposals)), cont: -1}
	order := make([]int, len(res.Proposals))
	for i, prop := range res.Proposals {
		order[i] = i
		f := &p.fate[i]
		f.score, f.inherited = res.Score, true
		if prop.Score != nil {
			f.score, f.inherited = *prop.Score, false
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return byScoreDesc(p.fate[x].score, p.fate[y].score) })
	for rank, i := range order {
		f := &p.fate[i]
		f.rank = rank
		switch {
		case ended:
			f.outcome = OutcomeBranchEnded
		case rank >= e.policy.Width:
			f.outcome = OutcomeBeyondWidth
		case res.Proposals[i].State.Kind == objects.KindNull:
			f.outcome = OutcomeNoState
		default:
			st, err := cloneValue(res.Proposals[i].State)
			if err != nil {
				f.outcome = OutcomeTooDeep
				continue
			}
			f.state = st
			if p.cont < 0 {
				p.cont, f.outcome, f.branchID = i, OutcomeContinue, b.ID
			} else {
				p.forks = append(p.forks, i)
				f.outcome, f.branchID = OutcomeFork, e.newForkID()
			}
		}
	}
	return p
}

// adopt applies a plan: b takes the continuation and goes to the back of
// the queue, then each fork is created and queued in rank order.
func (e *engine) adopt(ctx context.Context, b *branch, p plan) error {
	from := b.LastIteration
	b.state = p.fate[p.cont].state
	e.queue.push(b)
	for _, i := range p.forks {
		f := p.fate[i]
		fb := &branch{Branch: Branch{ID: f.branchID, Parent: b.ID, FromIteration: from, Score: f.score}, state: f.state}
		e.all = append(e.all, fb)
		e.queue.push(fb)
		if e.cfg.Recorder == nil {
			continue
		}
		snap, n := SnapshotState(e.cfg.Algo, f.state)
		if err := e.count("fork "+fb.ID, n); err != nil {
			return err
		}
		rec := ForkRecord{BranchID: fb.ID, ParentBranch: b.ID, FromIteration: from, CandidateIndex: i,
			CandidateScore: f.score, State: snap}
		if err := e.cfg.Recorder.Fork(ctx, rec); err != nil {
			return fmt.Errorf("%w: fork %s from %s: %w", ErrRecorder, fb.ID, b.ID, err)
		}
	}
	return nil
}

// prune keeps the MaxBranches best-scored live branches (stable, so ties
// keep queue order) and ends the rest (loopforge.md §1.3 step 12).
func (e *engine) prune(ctx context.Context) error {
	if e.queue.len() <= e.policy.MaxBranches {
		return nil
	}
	live := slices.Clone(e.queue.live())
	slices.SortStableFunc(live, func(x, y *branch) int { return byScoreDesc(x.Score, y.Score) })
	dropped := live[e.policy.MaxBranches:]
	e.queue.reset(live[:e.policy.MaxBranches])
	for _, d := range dropped {
		why := fmt.Sprintf("pruned: more than max-branches %d live branches, score=%s", e.policy.MaxBranches, formatFloat(d.Score))
		if err := e.end(ctx, d, GatePruned, why, ""); err != nil {
			return err
		}
	}
	return nil
}

// iterationRecord builds the sanitized record of one step and the number of
// substitutions it took.
func (e *engine) iterationRecord(b *branch, res StepResult, cost float64, badCost bool,
	started, done time.Time, p plan, bestChanged bool) (IterationRecord, SanitizeCounts) {
	var n SanitizeCounts
	if badCost {
		n.NonFinite++
	}
	// The branch's own state is what was scored; the step only saw a copy.
	state, sn := SnapshotState(e.cfg.Algo, b.state)
	n.add(sn)
	if !isFinite(res.Score) {
		// The Recorder writes it through Sanitize, as a string.
		n.NonFinite++
	}
	obs, on := sanitizeText(res.Observation)
	n.Text += on
	meta, mn := Sanitize(objectOrEmpty(res.Metadata))
	n.add(mn)
	outs, un := Sanitize(objectOrEmpty(res.Outputs))
	n.add(un)
	rec := IterationRecord{Iteration: e.steps, BranchStep: b.Steps, BranchID: b.ID, ParentBranch: b.Parent,
		State: state, Observation: obs, Score: res.Score, Stop: res.Stop, Metadata: meta, Outputs: outs,
		Cost: cost, Started: started, Duration: done.Sub(started), BestChanged: bestChanged,
		TotalSteps: e.steps, TotalCost: e.cost, Usage: res.Usage}
	rec.Model, _ = sanitizeText(res.Model)
	rec.Provider, _ = sanitizeText(res.Provider)
	rec.Candidates = make([]Candidate, len(res.Proposals))
	for i, prop := range res.Proposals {
		f := p.fate[i]
		cs, cn := SnapshotState(e.cfg.Algo, prop.State)
		n.add(cn)
		if !isFinite(f.score) && !f.inherited {
			n.NonFinite++
		}
		rec.Candidates[i] = Candidate{Index: i, Rank: f.rank, Score: f.score, Inherited: f.inherited,
			State: cs, Delta: Diff(state.Value, cs.Value), Outcome: f.outcome, BranchID: f.branchID}
	}
	rec.Sanitized = n.Total()
	return rec, n
}

// objectOrEmpty makes a nil map an empty JSON object rather than null.
func objectOrEmpty(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
