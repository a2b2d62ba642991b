package loops

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/tinehq/tine/plumbing"
)

// LoopTrajectory is one side of a loop diff: a whole loop (every iteration
// in global order) or one branch (its run's iterations, inherited ones
// included).
type LoopTrajectory struct {
	Spec   string `json:"spec"`
	Loop   string `json:"loop"`
	Branch string `json:"branch,omitempty"`
	Steps  int    `json:"steps"`
	// Curve is the score sparkline.
	Curve string `json:"curve"`
	// BestScore is the highest score and BestFirst the position (1-based
	// in this trajectory) and iteration where it was first reached.
	BestScore     *LoopScore `json:"best_score,omitempty"`
	BestFirst     int        `json:"best_first_position,omitempty"`
	BestIteration int        `json:"best_first_iteration,omitempty"`
	FinalScore    *LoopScore `json:"final_score,omitempty"`
	Gate          string     `json:"gate,omitempty"`
	Trajectory    []LoopStep `json:"trajectory"`
}

// LoopDiffResult is what `tine loop diff` reports.
type LoopDiffResult struct {
	A LoopTrajectory `json:"a"`
	B LoopTrajectory `json:"b"`
	// Shared counts the leading positions where both evaluated the same
	// state (same digest) to the same score; SharedEvents those that are
	// the very same event (a fork's inherited history).
	Shared       int `json:"shared"`
	SharedEvents int `json:"shared_events"`
	// DivergeAt is the first position (1-based) where they differ; 0 when
	// one trajectory is a prefix of the other (or they are equal).
	DivergeAt int       `json:"diverge_at"`
	AtA       *LoopStep `json:"at_a,omitempty"`
	AtB       *LoopStep `json:"at_b,omitempty"`
	// BestDelta is B's best score minus A's; Faster names the side that
	// first reached its best in fewer steps ("a", "b" or "same").
	BestDelta *LoopScore `json:"best_delta,omitempty"`
	Faster    string     `json:"faster,omitempty"`
}

// LoopDiff compares two loops or two branches. Each spec is a loop name
// (NAME or experiments/NAME) or a branch (NAME/BRANCH or
// experiments/NAME/BRANCH): the trajectories, their convergence (best
// score, when first reached) and the first position where they diverge.
func LoopDiff(ctx context.Context, r *plumbing.Repo, a, b string) (*LoopDiffResult, error) {
	ta, err := loopTrajectory(ctx, r, a)
	if err != nil {
		return nil, err
	}
	tb, err := loopTrajectory(ctx, r, b)
	if err != nil {
		return nil, err
	}
	res := &LoopDiffResult{A: *ta, B: *tb}
	n := min(len(ta.Trajectory), len(tb.Trajectory))
	for i := 0; i < n; i++ {
		sa, sb := ta.Trajectory[i], tb.Trajectory[i]
		if sa.Event == sb.Event && res.SharedEvents == i {
			res.SharedEvents++
		}
		if sa.StateDigest != sb.StateDigest || !sameScore(sa.Score, sb.Score) {
			res.DivergeAt = i + 1
			res.AtA, res.AtB = &sa, &sb
			break
		}
		res.Shared++
	}
	if res.DivergeAt == 0 && len(ta.Trajectory) != len(tb.Trajectory) {
		res.DivergeAt = n + 1
		if n < len(ta.Trajectory) {
			res.AtA = &ta.Trajectory[n]
		}
		if n < len(tb.Trajectory) {
			res.AtB = &tb.Trajectory[n]
		}
	}
	if ta.BestScore != nil && tb.BestScore != nil {
		d := *tb.BestScore - *ta.BestScore
		res.BestDelta = &d
		switch {
		case ta.BestFirst < tb.BestFirst:
			res.Faster = "a"
		case tb.BestFirst < ta.BestFirst:
			res.Faster = "b"
		default:
			res.Faster = "same"
		}
	}
	return res, nil
}

// sameScore compares scores, NaN equal to NaN.
func sameScore(a, b LoopScore) bool {
	return a == b || (math.IsNaN(float64(a)) && math.IsNaN(float64(b)))
}

// loopTrajectory loads one side of a diff.
func loopTrajectory(ctx context.Context, r *plumbing.Repo, spec string) (*LoopTrajectory, error) {
	s := strings.TrimSuffix(strings.TrimPrefix(spec, "experiments/"), "/")
	name, branch, isBranch := strings.Cut(s, "/")
	if isBranch && branch == "" {
		isBranch = false
	}
	want := ""
	if isBranch {
		want = branch
	}
	d, err := loadLoop(ctx, r.Objects(), r.Refs(), name, want)
	if err != nil {
		return nil, err
	}
	t := &LoopTrajectory{Spec: spec, Loop: d.name, Trajectory: []LoopStep{}}
	if isBranch {
		if !d.trailFound {
			return nil, fmt.Errorf("loop %s has no branch %q: %w", d.name, branch, ErrNoLoop)
		}
		t.Branch = branch
		t.Trajectory = append(t.Trajectory, d.trail...)
		t.Gate = d.trailGate
		if branch == LoopBestBranch {
			t.Branch = d.trailLoop
		}
	} else {
		t.Trajectory = d.sortedSteps()
		t.Gate = d.bestGate
	}
	t.Steps = len(t.Trajectory)
	scores := make([]float64, len(t.Trajectory))
	for i, st := range t.Trajectory {
		scores[i] = float64(st.Score)
	}
	t.Curve = Sparkline(scores, 64)
	if i := firstBest(scores); i >= 0 {
		bs := t.Trajectory[i].Score
		t.BestScore, t.BestFirst, t.BestIteration = &bs, i+1, t.Trajectory[i].Iteration
	}
	if n := len(t.Trajectory); n > 0 {
		f := t.Trajectory[n-1].Score
		t.FinalScore = &f
	}
	return t, nil
}
