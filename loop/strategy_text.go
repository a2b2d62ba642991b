package loop

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// textStopStep is the branch step at which the text strategy stops
// (loopforge.md §2.2: iteration >= 8, per branch).
const textStopStep = 8

// Text returns loopforge's text_rewrite strategy (loopforge.md §2.2): the
// state is {"text": string}; a step scores +0.5 for containing the goal,
// +0.5 for containing goodWord and -|runes-maxLen|/100, and proposes the
// text with the goal (or goodWord) appended (+0.2) and its sorted unique
// words (+0.1). It stops at branch step 8 or a score of 0.95.
//
// Two deliberate differences: an empty text with no goal falls back to the
// branch id without dashes (published: a random run id), and words equal
// but for case sort by their bytes (published: Python's random set order).
func Text(goal, goodWord string, maxLen int) Step {
	goal = strings.TrimSpace(goal)
	return func(_ context.Context, in StepInput) (StepResult, error) {
		txt, err := textField(in.State, "text")
		if err != nil {
			return StepResult{}, err
		}
		if txt == "" {
			txt = goal
			if txt == "" {
				txt = strings.ReplaceAll(in.BranchID, "-", "")
			}
		}
		score := 0.0
		if goal != "" && strings.Contains(txt, goal) {
			score += 0.5
		}
		if strings.Contains(txt, goodWord) {
			score += 0.5
		}
		n := utf8.RuneCountInString(txt)
		score -= math.Abs(float64(n-maxLen)) / 100.0
		obs := fmt.Sprintf("version=%d text_len=%d score=%.3f", in.BranchStep, n, score)
		if in.BranchStep >= textStopStep || score >= 0.95 {
			return StepResult{Observation: obs, Score: score, Stop: true,
				Metadata: map[string]any{"text": txt, "quality": score, "goal": goal}}, nil
		}
		expanded := txt + " " + goodWord
		if goal != "" {
			expanded = strings.TrimSpace(txt + " " + goal)
		}
		props := []Proposal{
			Propose(textState(expanded), score+0.2),
			Propose(textState(compactWords(txt, maxLen)), score+0.1),
		}
		return StepResult{Observation: obs, Score: score, Proposals: props,
			Outputs: map[string]any{"text": txt}, Metadata: map[string]any{"strategy": "text_rewrite"}}, nil
	}
}

// compactWords is the unique whitespace-separated words of txt (commas
// removed), sorted case-insensitively with byte order breaking ties, at
// most limit words, joined by single spaces.
func compactWords(txt string, limit int) string {
	words := strings.Fields(strings.ReplaceAll(txt, ",", ""))
	slices.Sort(words)
	words = slices.Compact(words)
	slices.SortStableFunc(words, func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	if limit >= 0 && len(words) > limit {
		words = words[:limit]
	}
	return strings.Join(words, " ")
}

func textState(s string) objects.Value {
	return objects.ObjectValue(objects.Member{Key: "text", Value: objects.String(s)})
}

// textField reads state[key] as a string; missing is "".
func textField(state objects.Value, key string) (string, error) {
	if state.Kind != objects.KindObject {
		return "", fmt.Errorf("text step: state is a JSON %s, want an object with %q", state.Kind, key)
	}
	v, ok := state.Get(key)
	if !ok {
		return "", nil
	}
	if v.Kind != objects.KindString {
		return "", fmt.Errorf("text step: state %q is a JSON %s, want a string", key, v.Kind)
	}
	return v.Str, nil
}
