package loop

import (
	"errors"
	"fmt"
	"math"

	"github.com/tinehq/tine/objects"
)

// ErrStepResponse reports a step-command response outside the protocol.
var ErrStepResponse = errors.New("malformed step response")

// maxResponseIntDigits bounds integer literals in a response so a hostile
// number cannot cost quadratic time to convert.
const maxResponseIntDigits = 4096

// ParseStepResponse reads one StepProtocol response: a single JSON object
// with "score" (a finite number, required), and optionally "protocol" (must
// be StepProtocol), "observation" (string), "stop" (boolean), "next_states"
// (array of at most MaxStepProposals objects with a non-null "state" and an
// optional finite numeric "score"), "metadata" and "outputs" (objects) and
// "cost" (a finite number >= 0). Unknown keys, wrong types, NaN,
// Infinity and integers outside ±(2^53-1) (which a double would round) are
// refused, so a typo fails closed instead of being ignored.
func ParseStepResponse(data []byte) (StepResult, error) {
	var res StepResult
	v, err := objects.ParseInput(data, objects.ParseOptions{MaxIntDigits: maxResponseIntDigits})
	if err != nil {
		if len(data) == 0 {
			return res, fmt.Errorf("%w: empty output (want one JSON object)", ErrStepResponse)
		}
		return res, fmt.Errorf("%w: %w", ErrStepResponse, err)
	}
	if v.Kind != objects.KindObject {
		return res, fmt.Errorf("%w: got a JSON %s, want an object", ErrStepResponse, v.Kind)
	}
	hasScore := false
	for _, m := range v.Object {
		switch m.Key {
		case "protocol":
			if m.Value.Kind != objects.KindString || m.Value.Str != StepProtocol {
				return res, fmt.Errorf("%w: protocol must be %q", ErrStepResponse, StepProtocol)
			}
		case "score":
			res.Score, err = finiteNumber("score", m.Value)
			hasScore = true
		case "observation":
			if m.Value.Kind != objects.KindString {
				return res, wrongType("observation", "string", m.Value)
			}
			res.Observation = m.Value.Str
		case "stop":
			if m.Value.Kind != objects.KindBool {
				return res, wrongType("stop", "boolean", m.Value)
			}
			res.Stop = m.Value.Bool
		case "next_states":
			res.Proposals, err = parseProposals(m.Value)
		case "metadata":
			res.Metadata, err = objectMap("metadata", m.Value)
		case "outputs":
			res.Outputs, err = objectMap("outputs", m.Value)
		case "cost":
			res.Cost, err = finiteNumber("cost", m.Value)
			if err == nil && res.Cost < 0 {
				err = fmt.Errorf("%w: cost %v is negative", ErrStepResponse, res.Cost)
			}
		default:
			return res, fmt.Errorf("%w: unknown key %q", ErrStepResponse, m.Key)
		}
		if err != nil {
			return StepResult{}, err
		}
	}
	if !hasScore {
		return StepResult{}, fmt.Errorf("%w: missing \"score\"", ErrStepResponse)
	}
	return res, nil
}

func parseProposals(v objects.Value) ([]Proposal, error) {
	if v.Kind != objects.KindArray {
		return nil, wrongType("next_states", "array", v)
	}
	if len(v.Array) > MaxStepProposals {
		return nil, fmt.Errorf("%w: %d next_states, at most %d", ErrStepResponse, len(v.Array), MaxStepProposals)
	}
	props := make([]Proposal, 0, len(v.Array))
	for i, item := range v.Array {
		where := fmt.Sprintf("next_states[%d]", i)
		if item.Kind != objects.KindObject {
			return nil, wrongType(where, "object", item)
		}
		var p Proposal
		hasState := false
		for _, m := range item.Object {
			switch m.Key {
			case "state":
				if m.Value.Kind == objects.KindNull {
					return nil, fmt.Errorf("%w: %s.state is null", ErrStepResponse, where)
				}
				p.State, hasState = m.Value, true
			case "score":
				s, err := finiteNumber(where+".score", m.Value)
				if err != nil {
					return nil, err
				}
				p.Score = &s
			default:
				return nil, fmt.Errorf("%w: unknown key %q in %s", ErrStepResponse, m.Key, where)
			}
		}
		if !hasState {
			return nil, fmt.Errorf("%w: %s has no \"state\"", ErrStepResponse, where)
		}
		props = append(props, p)
	}
	return props, nil
}

// finiteNumber reads a JSON number; the strict parser already refuses NaN
// and Infinity literals, and a demoted huge integer may still overflow.
func finiteNumber(what string, v objects.Value) (float64, error) {
	var f float64
	switch v.Kind {
	case objects.KindInt:
		f = float64(v.Int)
	case objects.KindFloat:
		f = v.Float
	default:
		return 0, wrongType(what, "number", v)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%w: %s is not finite", ErrStepResponse, what)
	}
	return f, nil
}

// objectMap turns a JSON object into the map a StepResult carries; values
// stay objects.Value (Sanitize accepts them).
func objectMap(what string, v objects.Value) (map[string]any, error) {
	if v.Kind != objects.KindObject {
		return nil, wrongType(what, "object", v)
	}
	m := make(map[string]any, len(v.Object))
	for _, mem := range v.Object {
		m[mem.Key] = mem.Value
	}
	return m, nil
}

func wrongType(what, want string, got objects.Value) error {
	return fmt.Errorf("%w: %s is a JSON %s, want %s", ErrStepResponse, what, got.Kind, want)
}
