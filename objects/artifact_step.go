package objects

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// ErrBadArtifact reports a .tine document that parses but is not a run
// record the reader can load: a missing field, a wrong type, a graph whose
// order and steps disagree. The error names the field or step.
var ErrBadArtifact = errors.New("malformed .tine run record")

// ArtifactStepKinds are the v2 step kinds (SPEC §3.2).
var ArtifactStepKinds = []string{"think", "tool", "model", "done", "error"}

// ArtifactStep is one step record of a .tine graph (SPEC §3.2), read the
// way the reference reader reads it: a legacy parent_id becomes a one-element
// parent list, null inputs/outputs/tool_info/error/usage/billing become {},
// a null cost or duration becomes 0, a non-string provider becomes "".
type ArtifactStep struct {
	// ID is the step id, the key of graph.steps and the record's "id".
	ID string
	// ParentIDs and CausalIDs are the step ids of its parents and causes.
	ParentIDs, CausalIDs []string
	// Kind is one of ArtifactStepKinds.
	Kind string
	// Inputs, Outputs, ToolInfo, Error, Usage and Billing are objects.
	Inputs, Outputs, ToolInfo, Error, Usage, Billing Value
	// ModelInfo and Provider are strings.
	ModelInfo, Provider string
	// Timestamp is the step's epoch seconds.
	Timestamp float64
	// Cost and Duration are the meters as stored (numbers, 0 when null).
	Cost, Duration Value
	// Record is the step record as read.
	Record Value
}

// StepID derives a v2 step id (SPEC §3.2, the reference's graph step id):
// lowercase hex SHA-256 of the v2 canonical JSON of {"error", "inputs",
// "kind", "model_info", "outputs", "parent_ids", "tool_info"}, where a null
// error, outputs or tool_info counts as {}. Timestamps, meters, usage,
// billing and causal ids are not hashed. An id may predate save-time
// redaction, so readers use it as a name and never re-derive it to check a
// file; the migration map keys on the stored id.
func StepID(kind string, parentIDs []string, inputs, outputs Value, modelInfo string, toolInfo, errV Value) (string, error) {
	parents := make([]Value, len(parentIDs))
	for i, p := range parentIDs {
		parents[i] = String(p)
	}
	rec := ObjectValue(
		Member{Key: "error", Value: orEmptyObject(errV)},
		Member{Key: "inputs", Value: inputs},
		Member{Key: "kind", Value: String(kind)},
		Member{Key: "model_info", Value: String(modelInfo)},
		Member{Key: "outputs", Value: orEmptyObject(outputs)},
		Member{Key: "parent_ids", Value: Array(parents...)},
		Member{Key: "tool_info", Value: orEmptyObject(toolInfo)},
	)
	b, err := CanonV2(rec)
	if err != nil {
		return "", fmt.Errorf("step id: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// DerivedID returns StepID of the step's own fields.
func (s *ArtifactStep) DerivedID() (string, error) {
	return StepID(s.Kind, s.ParentIDs, s.Inputs, s.Outputs, s.ModelInfo, s.ToolInfo, s.Error)
}

// orEmptyObject maps a Python-falsy value (null, {}, ...) to {}, as the
// reference's "x or {}" does.
func orEmptyObject(v Value) Value {
	if !v.Truthy() {
		return ObjectValue()
	}
	return v
}

// stepRequired are the members every step record carries (SPEC §3.2).
var stepRequired = []string{"cost", "duration", "error", "id", "inputs", "kind", "model_info", "outputs", "timestamp", "tool_info"}

// decodeArtifactStep reads the record stored under id, fail-closed on the
// shapes the reference reader refuses.
func decodeArtifactStep(id string, rec Value) (ArtifactStep, error) {
	fail := func(format string, args ...any) (ArtifactStep, error) {
		return ArtifactStep{}, fmt.Errorf("%w: step %s: %s", ErrBadArtifact, abbreviate(id), fmt.Sprintf(format, args...))
	}
	if rec.Kind != KindObject {
		return fail("record is a %s, not an object", rec.Kind)
	}
	for _, k := range stepRequired {
		if _, ok := rec.Get(k); !ok {
			return fail("missing %q", k)
		}
	}
	if got, _ := rec.Get("id"); got.Kind != KindString || got.Str != id {
		return fail("the graph key and the record's id differ")
	}
	s := ArtifactStep{ID: id, Record: rec, Cost: Int(0), Duration: Int(0)}
	var err error
	if s.ParentIDs, err = stepParents(rec); err != nil {
		return fail("%v", err)
	}
	if s.CausalIDs, err = stringList(rec, "causal_ids"); err != nil {
		return fail("%v", err)
	}
	kind, _ := rec.Get("kind")
	if kind.Kind != KindString || !isStepKind(kind.Str) {
		return fail("kind %s is not one of %v", pyRepr(kind), ArtifactStepKinds)
	}
	s.Kind = kind.Str
	objs := []struct {
		key string
		dst *Value
	}{{"inputs", &s.Inputs}, {"outputs", &s.Outputs}, {"tool_info", &s.ToolInfo}, {"error", &s.Error}, {"usage", &s.Usage}, {"billing", &s.Billing}}
	for _, o := range objs {
		v, _ := rec.Get(o.key)
		switch v.Kind {
		case KindNull:
			*o.dst = ObjectValue()
		case KindObject:
			*o.dst = v
		default:
			return fail("%s must be an object", o.key)
		}
	}
	if mi, _ := rec.Get("model_info"); mi.Kind == KindString {
		s.ModelInfo = mi.Str
	} else if mi.Kind != KindNull {
		return fail("model_info must be a string")
	}
	if p, _ := rec.Get("provider"); p.Kind == KindString {
		s.Provider = p.Str
	}
	ts, _ := rec.Get("timestamp")
	if s.Timestamp, err = finiteNumber(ts); err != nil {
		return fail("timestamp %v", err)
	}
	for _, m := range []struct {
		key string
		dst *Value
	}{{"cost", &s.Cost}, {"duration", &s.Duration}} {
		v, _ := rec.Get(m.key)
		if v.Kind == KindNull {
			continue
		}
		if !v.IsNumber() {
			return fail("%s must be a number", m.key)
		}
		*m.dst = v
	}
	return s, nil
}

// stepParents reads parent_ids, or a legacy parent_id as a one-element list.
func stepParents(rec Value) ([]string, error) {
	if v, ok := rec.Get("parent_ids"); ok && v.Kind != KindNull {
		return stringList(rec, "parent_ids")
	}
	p, _ := rec.Get("parent_id")
	switch {
	case p.Kind == KindNull:
		return []string{}, nil
	case p.Kind != KindString:
		return nil, errors.New("parent_id must be a string")
	case p.Str == "":
		return []string{}, nil
	}
	return []string{p.Str}, nil
}

// stringList reads an optional list of strings; absent or null is empty.
func stringList(v Value, key string) ([]string, error) {
	l, ok := v.Get(key)
	if !ok || l.Kind == KindNull {
		return []string{}, nil
	}
	if l.Kind != KindArray {
		return nil, fmt.Errorf("%s must be a list of strings", key)
	}
	out := make([]string, len(l.Array))
	for i, e := range l.Array {
		if e.Kind != KindString {
			return nil, fmt.Errorf("%s[%d] is not a string", key, i)
		}
		out[i] = e.Str
	}
	return out, nil
}

// finiteNumber reads an int or float (never a bool) that is finite.
func finiteNumber(v Value) (float64, error) {
	var f float64
	switch v.Kind {
	case KindInt:
		if v.Big != nil {
			f, _ = bigToFloat(v)
		} else {
			f = float64(v.Int)
		}
	case KindFloat:
		f = v.Float
	default:
		return 0, fmt.Errorf("is a %s, not a number", v.Kind)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("is not finite")
	}
	return f, nil
}

// bigToFloat converts a big integer value to the nearest float64.
func bigToFloat(v Value) (float64, bool) {
	f, _ := new(big.Float).SetInt(v.Big).Float64()
	return f, !math.IsInf(f, 0)
}

func isStepKind(k string) bool { return contains(ArtifactStepKinds, k) }
