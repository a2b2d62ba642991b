package loops

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// ErrNoLoop means no loop is recorded under the given name.
var ErrNoLoop = errors.New("no such loop")

// LoopStep is one recorded iteration of a loop.
type LoopStep struct {
	Iteration   int       `json:"iteration"`
	BranchStep  int       `json:"branch_step"`
	Branch      string    `json:"branch"`
	Score       LoopScore `json:"score"`
	Observation string    `json:"observation"`
	Cost        float64   `json:"cost"`
	Duration    float64   `json:"duration"`
	StateDigest string    `json:"state_digest"`
	Candidates  int       `json:"candidates"`
	Best        bool      `json:"best,omitempty"`
	Event       string    `json:"event"`
}

// LoopBranchInfo is one branch as recorded: its run and how it ended.
type LoopBranchInfo struct {
	ID            string `json:"id"`
	Parent        string `json:"parent,omitempty"`
	FromIteration int    `json:"from_iteration,omitempty"`
	Ref           string `json:"ref"`
	Run           string `json:"run"`
	Status        string `json:"status"`
	Steps         int    `json:"steps"`
	Gate          string `json:"gate,omitempty"`
	Reason        string `json:"reason,omitempty"`
}

// LoopShowResult is what `tine loop show` reports.
type LoopShowResult struct {
	Loop   string          `json:"loop"`
	Goal   string          `json:"goal"`
	Policy json.RawMessage `json:"policy,omitempty"`
	// Gate is why the loop stopped ("" when it did not finish).
	Gate       string           `json:"gate,omitempty"`
	TotalSteps int              `json:"total_steps"`
	TotalCost  float64          `json:"total_cost"`
	Sanitized  int              `json:"sanitized"`
	Steps      []LoopStep       `json:"steps"`
	Curve      string           `json:"curve"`
	BestScore  *LoopScore       `json:"best_score,omitempty"`
	BestFirst  int              `json:"best_first_reached,omitempty"`
	BestBranch string           `json:"best_branch,omitempty"`
	BestRef    string           `json:"best_ref,omitempty"`
	Branches   []LoopBranchInfo `json:"branches"`
}

// loopData is what loop show and loop diff keep of a loaded loop: each
// branch's summary, one LoopStep per distinct iteration event, the init
// event's goal and policy, the best run's result and, for loop diff of one
// branch, that branch's trajectory. Runs are read one at a time and
// dropped, and each event shared by oid is read once and kept as its
// summary only, so memory grows with the loop's iterations, not with
// branches times their depth (a 1,000-branch loop lists ~500,000 event
// oids over its runs).
type loopData struct {
	name     string
	branches []LoopBranchInfo
	seen     map[objects.OID]int // every event read: its index in steps, -1 for others
	steps    []LoopStep          // the iteration events, in read order
	goal     string
	policy   json.RawMessage
	hasInit  bool
	// best: whether experiments/NAME/best exists, its run's loop.branch
	// and loop.result's gate and sanitized count.
	hasBest              bool
	bestBranch, bestGate string
	bestSanitized        int
	// trail is the branch loadLoop was asked for: its iterations in run
	// order and its loop.gate (trailFound false when no such branch).
	trail      []LoopStep
	trailGate  string
	trailLoop  string
	trailFound bool
}

// branchLess orders root first, then alt-bN by N (creation order).
func branchLess(a, b string) bool {
	ka, kb := branchKey(a), branchKey(b)
	if ka != kb {
		return ka < kb
	}
	return a < b
}

func branchKey(id string) int {
	if id == "root" {
		return -1
	}
	n := 0
	if i := strings.LastIndexByte(id, 'b'); i >= 0 {
		for _, c := range id[i+1:] {
			if c < '0' || c > '9' {
				return math.MaxInt32
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	return math.MaxInt32
}

// branchInfo reads a branch run's loop member.
func branchInfo(id, ref string, run *runs.Run) LoopBranchInfo {
	lv, _ := run.Value.Get("loop")
	// Cloned: the parser's strings share the run's body, which a loaded
	// loop must not keep (loopData).
	b := LoopBranchInfo{ID: id, Ref: ref, Run: run.ID.String(), Status: strings.Clone(run.Status),
		Parent: strings.Clone(runs.Str(lv, "parent_branch")), Gate: strings.Clone(runs.Str(lv, "gate")),
		Reason: strings.Clone(runs.Str(lv, "reason"))}
	b.FromIteration = intAttr(lv, "from_iteration")
	b.Steps = intAttr(lv, "steps")
	return b
}

// intAttr reads an integer member, 0 when absent.
func intAttr(v objects.Value, key string) int {
	if x, ok := v.Get(key); ok {
		if f, ok := runs.Number(x); ok {
			return int(f)
		}
	}
	return 0
}

// loopStepOf decodes an iteration event, ok false for any other event.
func loopStepOf(e *runs.Event) (LoopStep, bool) {
	if e.Missing || e.Kind != LoopKindLoop || runs.Str(e.Attributes, "phase") != LoopPhaseIteration {
		return LoopStep{}, false
	}
	a := e.Attributes
	s := LoopStep{Iteration: intAttr(a, "iteration"), BranchStep: intAttr(a, "branch_step"), Branch: runs.Str(a, "branch"),
		Observation: runs.Str(a, "observation"), Cost: e.Cost, Duration: e.Duration, StateDigest: runs.Str(a, "state_digest"),
		Event: e.ID.String(), Score: LoopScore(math.NaN())}
	if sc, ok := a.Get("score"); ok {
		if f, ok := runs.Number(sc); ok {
			s.Score = LoopScore(f)
		} else if sc.Kind == objects.KindString {
			s.Score = LoopScore(textScore(sc.Str))
		}
	}
	if c, ok := a.Get("candidates"); ok && c.Kind == objects.KindArray {
		s.Candidates = len(c.Array)
	}
	if b, ok := a.Get("best"); ok && b.Kind == objects.KindBool {
		s.Best = b.Bool
	}
	return s, true
}

// textScore reads the sanitizer's spelling of a non-finite score.
func textScore(s string) float64 {
	switch s {
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	return math.NaN()
}

// stepsOf returns the iteration events among events, in order.
func stepsOf(events []*runs.Event) []LoopStep {
	var out []LoopStep
	for _, e := range events {
		if s, ok := loopStepOf(e); ok {
			out = append(out, s)
		}
	}
	return out
}

// LoopShow reads loop name (experiments/NAME/...) back: every iteration in
// global order with the score curve, where the best score was first
// reached, and how each branch ended.
func LoopShow(ctx context.Context, r *plumbing.Repo, name string) (*LoopShowResult, error) {
	d, err := loadLoop(ctx, r.Objects(), r.Refs(), name, "")
	if err != nil {
		return nil, err
	}
	res := &LoopShowResult{Loop: d.name, Branches: d.branches, Steps: d.sortedSteps(), Goal: d.goal, Policy: d.policy}
	for _, s := range res.Steps {
		res.TotalCost += s.Cost
	}
	res.TotalSteps = len(res.Steps)
	scores := make([]float64, len(res.Steps))
	for i, s := range res.Steps {
		scores[i] = float64(s.Score)
	}
	res.Curve = Sparkline(scores, 64)
	if i := firstBest(scores); i >= 0 {
		b := res.Steps[i].Score
		res.BestScore, res.BestFirst, res.BestBranch = &b, res.Steps[i].Iteration, res.Steps[i].Branch
	}
	if d.hasBest {
		res.BestRef = "experiments/" + d.name + "/" + LoopBestBranch
		res.Gate, res.Sanitized = d.bestGate, d.bestSanitized
	}
	return res, nil
}

// sortedSteps returns the loop's iterations in global order.
func (d *loopData) sortedSteps() []LoopStep {
	out := append([]LoopStep{}, d.steps...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Iteration < out[j].Iteration })
	return out
}

// firstBest returns the index of the first highest finite score, -1 if none.
func firstBest(scores []float64) int {
	best := -1
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, -1) {
			continue
		}
		if best < 0 || s > scores[best] {
			best = i
		}
	}
	return best
}

// Sparkline draws scores as at most width block characters, lowest to
// highest; with more scores than width each character shows the highest
// score of its bucket. Non-finite scores draw as a space.
func Sparkline(scores []float64, width int) string {
	const bars = "▁▂▃▄▅▆▇█"
	ticks := []rune(bars)
	if len(scores) == 0 || width <= 0 {
		return ""
	}
	n := len(scores)
	if n > width {
		n = width
	}
	cells := make([]float64, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for c := range cells {
		cells[c] = math.NaN()
		from, to := c*len(scores)/n, (c+1)*len(scores)/n
		for _, s := range scores[from:to] {
			if math.IsNaN(s) || math.IsInf(s, 0) {
				continue
			}
			if math.IsNaN(cells[c]) || s > cells[c] {
				cells[c] = s
			}
		}
		if !math.IsNaN(cells[c]) {
			lo, hi = math.Min(lo, cells[c]), math.Max(hi, cells[c])
		}
	}
	var b strings.Builder
	for _, s := range cells {
		switch {
		case math.IsNaN(s):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(ticks[len(ticks)-1])
		default:
			b.WriteRune(ticks[int((s-lo)/(hi-lo)*float64(len(ticks)-1)+0.5)])
		}
	}
	return b.String()
}
