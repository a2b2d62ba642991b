package gate

import (
	"errors"
	"fmt"
	"math"

	"github.com/tinehq/tine/internal/llm"
	"github.com/tinehq/tine/objects"
)

// EvaluatorVerdict is one parsed evaluator response (SPEC §8).
type EvaluatorVerdict struct {
	Verdict   Verdict // pass, fail or uncertain
	Score     *float64
	Rationale string
	Findings  []Finding
	// Metadata is the envelope's metadata as canonical JSON, or "".
	Metadata string
}

// maxEvaluatorJSONDepth bounds an evaluator response's nesting.
const maxEvaluatorJSONDepth = 32

// ParseEvaluatorResponse reads an evaluator's stdout strictly: either a
// bare verdict {"verdict","score","rationale","findings"} with no other
// key, or an envelope {"schema_version":1,"result":<verdict>,"metadata":
// {...}}; a surrounding ``` fence is stripped. Anything else is an error,
// which counts as an errored run and can never make a rubric pass.
func ParseEvaluatorResponse(stdout []byte) (*EvaluatorVerdict, error) {
	text := llm.StripFence(stdout)
	v, err := objects.ParseJSON(text, objects.ParseOptions{MaxDepth: maxEvaluatorJSONDepth, MaxIntDigits: 64})
	if err != nil {
		return nil, fmt.Errorf("evaluator output is not valid JSON: %w", err)
	}
	if v.Kind != objects.KindObject {
		return nil, errors.New("evaluator output is not a JSON object")
	}
	if _, ok := v.Get("schema_version"); !ok {
		return parseBareVerdict(v)
	}
	if err := onlyKeys(v, "schema_version", "result", "metadata"); err != nil {
		return nil, err
	}
	sv, _ := v.Get("schema_version")
	if sv.Kind != objects.KindInt || sv.Big != nil || sv.Int != 1 {
		return nil, errors.New("evaluator envelope schema_version is not 1")
	}
	res, ok := v.Get("result")
	if !ok {
		return nil, errors.New("evaluator envelope has no result")
	}
	out, err := parseBareVerdict(res)
	if err != nil {
		return nil, err
	}
	if md, ok := v.Get("metadata"); ok {
		if err := checkMetadata(md); err != nil {
			return nil, err
		}
		red, _ := objects.RedactValue(md)
		b, err := objects.CanonV3(red)
		if err != nil {
			return nil, fmt.Errorf("evaluator metadata: %w", err)
		}
		out.Metadata = string(b)
	}
	return out, nil
}

func onlyKeys(v objects.Value, keys ...string) error {
	if v.Kind != objects.KindObject {
		return errors.New("evaluator output: expected a JSON object")
	}
	for _, m := range v.Object {
		found := false
		for _, k := range keys {
			found = found || m.Key == k
		}
		if !found {
			return fmt.Errorf("evaluator output has unexpected key %q", clip(m.Key, 40))
		}
	}
	return nil
}

func parseBareVerdict(v objects.Value) (*EvaluatorVerdict, error) {
	if err := onlyKeys(v, "verdict", "score", "rationale", "findings"); err != nil {
		return nil, err
	}
	out := &EvaluatorVerdict{}
	vd, ok := v.Get("verdict")
	if !ok || vd.Kind != objects.KindString || (vd.Str != "pass" && vd.Str != "fail" && vd.Str != "uncertain") {
		return nil, errors.New("evaluator verdict must be pass, fail or uncertain")
	}
	out.Verdict = Verdict(vd.Str)
	if s, ok := v.Get("score"); ok && s.Kind != objects.KindNull {
		if !s.IsNumber() || s.Big != nil {
			return nil, errors.New("evaluator score must be a number from 0 to 1")
		}
		f := s.Float
		if s.Kind == objects.KindInt {
			f = float64(s.Int)
		}
		if math.IsNaN(f) || f < 0 || f > 1 {
			return nil, errors.New("evaluator score must be a number from 0 to 1")
		}
		out.Score = &f
	}
	r, ok := v.Get("rationale")
	if !ok || r.Kind != objects.KindString {
		return nil, errors.New("evaluator rationale must be a string")
	}
	out.Rationale = r.Str
	if fs, ok := v.Get("findings"); ok {
		if fs.Kind != objects.KindArray {
			return nil, errors.New("evaluator findings must be a list")
		}
		for _, f := range fs.Array {
			fd, err := parseFinding(f)
			if err != nil {
				return nil, err
			}
			out.Findings = append(out.Findings, fd)
		}
	}
	return out, nil
}

func parseFinding(f objects.Value) (Finding, error) {
	if err := onlyKeys(f, "message", "file_path", "line", "suggestion"); err != nil {
		return Finding{}, err
	}
	var out Finding
	msg, ok := f.Get("message")
	if !ok || msg.Kind != objects.KindString {
		return Finding{}, errors.New("evaluator finding needs a message string")
	}
	out.Message = msg.Str
	if p, ok := f.Get("file_path"); ok && p.Kind != objects.KindNull {
		if p.Kind != objects.KindString {
			return Finding{}, errors.New("evaluator finding file_path must be a string")
		}
		out.FilePath = p.Str
	}
	if l, ok := f.Get("line"); ok && l.Kind != objects.KindNull {
		if l.Kind != objects.KindInt || l.Big != nil || l.Int < 1 || l.Int > math.MaxInt32 {
			return Finding{}, errors.New("evaluator finding line must be an integer >= 1")
		}
		out.Line = int(l.Int)
	}
	if s, ok := f.Get("suggestion"); ok && s.Kind != objects.KindNull {
		if s.Kind != objects.KindString {
			return Finding{}, errors.New("evaluator finding suggestion must be a string")
		}
		out.Suggestion = s.Str
	}
	return out, nil
}

// checkMetadata validates EvaluatorCallMetadata's keys and types.
func checkMetadata(md objects.Value) error {
	if err := onlyKeys(md, "provider", "model", "response_id", "status", "attempts", "input_tokens",
		"output_tokens", "total_tokens", "cli_version", "cost_usd", "duration_ms"); err != nil {
		return err
	}
	for _, m := range md.Object {
		ok := true
		switch m.Key {
		case "provider", "model", "status":
			ok = m.Value.Kind == objects.KindString
		case "response_id", "cli_version":
			ok = m.Value.Kind == objects.KindString || m.Value.Kind == objects.KindNull
		case "attempts":
			ok = m.Value.Kind == objects.KindInt && m.Value.Big == nil && m.Value.Int >= 1
		case "input_tokens", "output_tokens", "total_tokens":
			ok = m.Value.Kind == objects.KindNull || (m.Value.Kind == objects.KindInt && m.Value.Big == nil && m.Value.Int >= 0)
		case "cost_usd", "duration_ms":
			ok = m.Value.Kind == objects.KindNull || (m.Value.IsNumber() && m.Value.Big == nil)
		}
		if !ok {
			return fmt.Errorf("evaluator metadata %s has the wrong type", m.Key)
		}
	}
	return nil
}
