package loop

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/tinehq/tine/objects"
)

// Numeric returns loopforge's numeric_refinement strategy (loopforge.md
// §2.1): the state is {"x": number}; a step scores -|target-x| and proposes
// x moved by stepSize toward the target and x moved halfway, dropping
// duplicates; it stops once |target-x| <= tol. Proposed states are
// {"x": float, "step": BranchStep}.
func Numeric(target, stepSize, tol float64) Step {
	return func(_ context.Context, in StepInput) (StepResult, error) {
		cur, err := numberField(in.State, "x")
		if err != nil {
			return StepResult{}, err
		}
		delta := target - cur
		score := -math.Abs(delta)
		obs := fmt.Sprintf("branch %s at x=%.4f (delta=%.4f)", in.BranchID, cur, delta)
		if math.Abs(delta) <= tol {
			return StepResult{Observation: obs, Score: score, Stop: true,
				Metadata: map[string]any{"final": true, "x": cur, "target": target}}, nil
		}
		move := stepSize
		if delta <= 0 {
			move = -stepSize
		}
		seen := []float64{cur}
		var props []Proposal
		for _, x := range []float64{cur + move, cur + delta/2} {
			dup := false
			for _, s := range seen {
				dup = dup || s == x
			}
			if dup {
				continue
			}
			seen = append(seen, x)
			st := objects.ObjectValue(
				objects.Member{Key: "x", Value: objects.Float(x)},
				objects.Member{Key: "step", Value: objects.Int(int64(in.BranchStep))},
			)
			props = append(props, Propose(st, -math.Abs(target-x)))
		}
		return StepResult{Observation: obs, Score: score, Proposals: props,
			Outputs:  map[string]any{"x": cur, "target": target, "delta": delta},
			Metadata: map[string]any{"strategy": "numeric_refinement", "branch": in.BranchID}}, nil
	}
}

// numberField reads state[key] as a float: a missing key is 0, as in the
// published strategy's state.get(key, 0.0); anything but a number is an
// error naming the key.
func numberField(state objects.Value, key string) (float64, error) {
	if state.Kind != objects.KindObject {
		return 0, fmt.Errorf("numeric step: state is a JSON %s, want an object with %q", state.Kind, key)
	}
	v, ok := state.Get(key)
	if !ok {
		return 0, nil
	}
	switch {
	case v.Kind == objects.KindFloat:
		return v.Float, nil
	case v.Kind == objects.KindInt && v.Big != nil:
		f, _ := new(big.Float).SetInt(v.Big).Float64()
		return f, nil
	case v.Kind == objects.KindInt:
		return float64(v.Int), nil
	}
	return 0, fmt.Errorf("numeric step: state %q is a JSON %s, want a number", key, v.Kind)
}
