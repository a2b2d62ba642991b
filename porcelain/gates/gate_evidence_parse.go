package gates

import (
	"fmt"
	"math"
	"time"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// evReader reads the members of one stored JSON object strictly: every
// read is type-checked, and done reports a member that was never read.
type evReader struct {
	v    objects.Value
	seen map[string]bool
	err  error
}

func newEvReader(v objects.Value, what string) *evReader {
	r := &evReader{v: v, seen: map[string]bool{}}
	if v.Kind != objects.KindObject {
		r.err = fmt.Errorf("%s is a JSON %s, not an object", what, v.Kind)
	}
	return r
}

func (r *evReader) fail(key, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s is not %s", key, want)
	}
}

// get returns a member; a missing one is an error unless optional.
func (r *evReader) get(key string, optional bool) (objects.Value, bool) {
	if r.err != nil {
		return objects.Value{}, false
	}
	r.seen[key] = true
	v, ok := r.v.Get(key)
	if !ok && !optional {
		r.err = fmt.Errorf("%s is missing", key)
	}
	return v, ok
}

func (r *evReader) str(key string) string {
	v, ok := r.get(key, false)
	if ok && v.Kind != objects.KindString {
		r.fail(key, "a string")
	}
	return v.Str
}

// optStr reads a string or null ("" for null).
func (r *evReader) optStr(key string) string {
	v, ok := r.get(key, false)
	if !ok || v.Kind == objects.KindNull {
		return ""
	}
	if v.Kind != objects.KindString || v.Str == "" {
		r.fail(key, "a non-empty string or null")
	}
	return v.Str
}

func (r *evReader) integer(key string) int64 {
	v, ok := r.get(key, false)
	if ok && (v.Kind != objects.KindInt || v.Big != nil) {
		r.fail(key, "an integer")
	}
	return v.Int
}

func (r *evReader) optInt(key string) *int {
	v, ok := r.get(key, false)
	if !ok || v.Kind == objects.KindNull {
		return nil
	}
	if v.Kind != objects.KindInt || v.Big != nil || v.Int < math.MinInt32 || v.Int > math.MaxInt32 {
		r.fail(key, "a small integer or null")
		return nil
	}
	i := int(v.Int)
	return &i
}

func (r *evReader) optFloat(key string) *float64 {
	v, ok := r.get(key, false)
	if !ok || v.Kind == objects.KindNull {
		return nil
	}
	f, isNum := runs.Number(v)
	if !isNum || math.IsNaN(f) || math.IsInf(f, 0) {
		r.fail(key, "a finite number or null")
		return nil
	}
	return &f
}

// strList reads a list of strings; null is nil when nullable.
func (r *evReader) strList(key string, nullable bool) []string {
	v, ok := r.get(key, false)
	if !ok {
		return nil
	}
	if nullable && v.Kind == objects.KindNull {
		return nil
	}
	if v.Kind != objects.KindArray {
		r.fail(key, "a list")
		return nil
	}
	out := make([]string, 0, len(v.Array))
	for _, e := range v.Array {
		if e.Kind != objects.KindString {
			r.fail(key, "a list of strings")
			return nil
		}
		out = append(out, e.Str)
	}
	return out
}

func (r *evReader) list(key string) []objects.Value {
	v, ok := r.get(key, false)
	if ok && v.Kind != objects.KindArray {
		r.fail(key, "a list")
	}
	return v.Array
}

func (r *evReader) timestamp(key string) time.Time {
	s := r.str(key)
	if r.err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		r.fail(key, "an RFC 3339 time")
	}
	return t.UTC()
}

func (r *evReader) millis(key string) time.Duration {
	ms := r.integer(key)
	if r.err == nil && (ms < 0 || ms > math.MaxInt64/int64(time.Millisecond)) {
		r.fail(key, "a duration in milliseconds")
	}
	return time.Duration(ms) * time.Millisecond
}

// done reports the first error or an unread member.
func (r *evReader) done() error {
	if r.err != nil {
		return r.err
	}
	for _, mem := range r.v.Object {
		if !r.seen[mem.Key] {
			return fmt.Errorf("unknown member %q", mem.Key)
		}
	}
	return nil
}

// parseEvidence decodes a gate evidence body (gate.Evidence.JSON's shape).
func parseEvidence(body objects.Value) (*gate.Evidence, error) {
	r := newEvReader(body, "evidence")
	ev := &gate.Evidence{}
	if r.integer("schema_version") != gate.EvidenceSchemaVersion && r.err == nil {
		r.fail("schema_version", fmt.Sprint(gate.EvidenceSchemaVersion))
	}
	ev.ConstraintID = r.str("constraint_id")
	ev.Kind = gate.Kind(r.str("kind"))
	ev.Verdict = gate.Verdict(r.str("verdict"))
	ev.Enforcement = gate.Enforcement(r.str("enforcement"))
	ev.InputDigest = r.str("input_digest")
	ev.Message = r.str("message")
	ev.Category = gate.Category(r.optStr("failure_category"))
	ev.Command = r.strList("command", true)
	ev.ExitCode = r.optInt("exit_code")
	ev.Value, ev.Baseline, ev.Delta = r.optFloat("value"), r.optFloat("baseline"), r.optFloat("delta")
	ev.MetricSHA256 = r.optStr("evidence_sha256")
	if d, ok := r.get("details", false); ok {
		ev.Details = parseDetails(r, d)
	}
	ev.BlockedBy = r.strList("blocked_by", false)
	if r.str("output_tail") != "" && r.err == nil {
		r.fail("output_tail", "empty (the tail is the output blob)")
	}
	for _, a := range r.list("attempts") {
		ev.Attempts = append(ev.Attempts, parseAttempt(r, a))
	}
	for _, f := range r.list("findings") {
		ev.Findings = append(ev.Findings, parseFinding(r, f))
	}
	for _, x := range r.list("rubric_runs") {
		ev.Runs = append(ev.Runs, parseRubricRun(r, x))
	}
	ev.Started = r.timestamp("started_at")
	ev.Duration = r.millis("duration_ms")
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("%w: %w", gate.ErrEvidence, err)
	}
	if err := checkEvidenceEnums(ev); err != nil {
		return nil, fmt.Errorf("%w: %w", gate.ErrEvidence, err)
	}
	return ev, nil
}

// checkEvidenceEnums refuses values outside gate's vocabularies.
func checkEvidenceEnums(ev *gate.Evidence) error {
	switch {
	case ev.ConstraintID == "":
		return fmt.Errorf("constraint_id is empty")
	case !ev.Verdict.Valid():
		return fmt.Errorf("verdict %q is unknown", ev.Verdict)
	case ev.Enforcement != gate.Required && ev.Enforcement != gate.Advisory:
		return fmt.Errorf("enforcement %q is unknown", ev.Enforcement)
	case ev.Category != "" && ev.Category != gate.CategoryConstraint && ev.Category != gate.CategoryEnvironment:
		return fmt.Errorf("failure_category %q is unknown", ev.Category)
	}
	switch ev.Kind {
	case gate.KindCommand, gate.KindMetric, gate.KindRatchet, gate.KindArtifact, gate.KindRubric:
		return nil
	}
	return fmt.Errorf("kind %q is unknown", ev.Kind)
}

func parseDetails(r *evReader, d objects.Value) map[string]string {
	if d.Kind != objects.KindObject {
		r.fail("details", "an object")
		return nil
	}
	out := make(map[string]string, len(d.Object))
	for _, mem := range d.Object {
		if mem.Value.Kind != objects.KindString {
			r.fail("details."+mem.Key, "a string")
			return nil
		}
		out[mem.Key] = mem.Value.Str
	}
	return out
}

func parseAttempt(parent *evReader, v objects.Value) gate.Attempt {
	r := newEvReader(v, "attempt")
	a := gate.Attempt{Number: int(r.integer("attempt")), ExitCode: r.optInt("exit_code")}
	a.Output = []byte(r.str("output_tail"))
	if len(a.Output) == 0 {
		a.Output = nil
	}
	a.Error = r.optStr("error")
	a.Started = r.timestamp("started_at")
	a.Duration = r.millis("duration_ms")
	if err := r.done(); err != nil && parent.err == nil {
		parent.err = fmt.Errorf("attempts: %w", err)
	}
	return a
}

func parseFinding(parent *evReader, v objects.Value) gate.Finding {
	r := newEvReader(v, "finding")
	f := gate.Finding{Message: r.str("message")}
	if x, ok := r.get("file_path", true); ok {
		if x.Kind != objects.KindString || x.Str == "" {
			r.fail("file_path", "a non-empty string")
		}
		f.FilePath = x.Str
	}
	if x, ok := r.get("line", true); ok {
		if x.Kind != objects.KindInt || x.Big != nil || x.Int < 1 || x.Int > math.MaxInt32 {
			r.fail("line", "a positive integer")
		}
		f.Line = int(x.Int)
	}
	if x, ok := r.get("suggestion", true); ok {
		if x.Kind != objects.KindString || x.Str == "" {
			r.fail("suggestion", "a non-empty string")
		}
		f.Suggestion = x.Str
	}
	if err := r.done(); err != nil && parent.err == nil {
		parent.err = fmt.Errorf("findings: %w", err)
	}
	return f
}

func parseRubricRun(parent *evReader, v objects.Value) gate.RubricRun {
	r := newEvReader(v, "rubric run")
	x := gate.RubricRun{Verdict: gate.Verdict(r.str("verdict")), Score: r.optFloat("score"), Rationale: r.str("rationale")}
	x.Error = r.optStr("error")
	x.Metadata = r.optStr("metadata")
	if err := r.done(); err == nil && !x.Verdict.Valid() {
		r.err = fmt.Errorf("verdict %q is unknown", x.Verdict)
	}
	if err := r.done(); err != nil && parent.err == nil {
		parent.err = fmt.Errorf("rubric_runs: %w", err)
	}
	return x
}
