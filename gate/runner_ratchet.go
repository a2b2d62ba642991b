package gate

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// compareBaseline finishes a ratchet: load the committed baseline and
// require the value not to move the wrong way (SPEC §1, §2 ratchet).
func compareBaseline(c *Constraint, env ExecEnv, value float64, ev *Evidence) {
	r := c.Ratchet
	raw, err := readConfined(env.Root, r.BaselineFile, maxBaselineBytes)
	var base float64
	if err == nil {
		base, err = ParseBaseline(raw, c.ID)
	}
	if err != nil {
		setResult(ev, Error, CategoryEnvironment, fmt.Sprintf("Ratchet baseline is missing or invalid for %s in %s (%s); commit a baseline entry", c.ID, r.BaselineFile, baselineReason(err)))
		return
	}
	delta := value - base
	ev.Baseline, ev.Delta = floatPtr(base), floatPtr(delta)
	ev.Details["baseline"], ev.Details["change"], ev.Details["mode"] = fmtNum(base), fmtNum(delta), r.Mode
	ok := delta <= 0
	if r.Mode == "must_not_decrease" {
		ok = delta >= 0
	}
	if ok {
		setResult(ev, Pass, "", fmt.Sprintf("Ratchet holds: %s against baseline %s (%s)", fmtNum(value), fmtNum(base), r.Mode))
		return
	}
	setResult(ev, Fail, CategoryConstraint, fmt.Sprintf("Ratchet regressed: %s against baseline %s (%s)", fmtNum(value), fmtNum(base), r.Mode))
}

func baselineReason(err error) string {
	if be, ok := err.(*baselineError); ok {
		return be.msg
	}
	return stableError(err)
}

type baselineError struct{ msg string }

func (e *baselineError) Error() string { return e.msg }

// ParseBaseline reads a committed baseline file and returns id's value:
// {"schema_version":1,"ratchets":{"ID":{"value":N,...}|N}} (SPEC §1). The
// JSON is read strictly; any other shape is an error.
func ParseBaseline(raw []byte, id string) (float64, error) {
	v, err := objects.ParseJSON(raw, objects.ParseOptions{MaxDepth: 16, DemoteBigInts: true, MaxIntDigits: 400})
	if err != nil {
		return 0, &baselineError{"not valid JSON"}
	}
	if sv, ok := v.Get("schema_version"); !ok || sv.Kind != objects.KindInt || sv.Big != nil || sv.Int != 1 {
		return 0, &baselineError{"schema_version is not 1"}
	}
	rs, ok := v.Get("ratchets")
	if !ok || rs.Kind != objects.KindObject {
		return 0, &baselineError{"no ratchets object"}
	}
	entry, ok := rs.Get(id)
	if !ok {
		return 0, &baselineError{"no entry"}
	}
	if entry.Kind == objects.KindObject {
		for _, m := range entry.Object {
			switch m.Key {
			case "value", "updated_at", "evidence_sha256":
			default:
				return 0, &baselineError{"unknown key " + m.Key}
			}
		}
		entry, ok = entry.Get("value")
		if !ok {
			return 0, &baselineError{"entry has no value"}
		}
	}
	if entry.Kind != objects.KindInt && entry.Kind != objects.KindFloat {
		return 0, &baselineError{"value is not a number"}
	}
	f, err := numberOf(entry)
	if err != nil {
		return 0, &baselineError{"value is not finite"}
	}
	return f, nil
}
