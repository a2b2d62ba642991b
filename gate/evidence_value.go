package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
)

// EvidenceSchemaVersion is the schema_version of Evidence.JSON.
const EvidenceSchemaVersion = 1

// JSON returns the evidence as a JSON object in ConstraintLoop's
// ConstraintResult vocabulary (SPEC §2), plus "command", "started_at" and
// "rubric_runs". Output text is made valid UTF-8. This is the body the
// persistence layer stores and rubric bundles carry.
func (e *Evidence) JSON() objects.Value { return e.value(true) }

// Digest is the evidence digest a waiver or acknowledgement binds to
// (SPEC §4 result_evidence_digest): hex SHA-256 of the canonical JSON with
// the timing fields (started_at, duration_ms, per-attempt timing) removed,
// so a rerun that differs only in timing keeps the digest and any change
// in verdict, message, output or findings changes it.
func (e *Evidence) Digest() (string, error) {
	b, err := objects.CanonV3(e.value(false))
	if err != nil {
		return "", fmt.Errorf("%w: constraint %s: %w", ErrEvidence, e.ConstraintID, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func (e *Evidence) value(timing bool) objects.Value {
	m := []objects.Member{
		mem("schema_version", objects.Int(EvidenceSchemaVersion)),
		mem("constraint_id", objects.String(e.ConstraintID)),
		mem("kind", objects.String(string(e.Kind))),
		mem("verdict", objects.String(string(e.Verdict))),
		mem("enforcement", objects.String(string(e.Enforcement))),
		mem("input_digest", objects.String(e.InputDigest)),
		mem("message", objects.String(utf8Text(e.Message))),
		mem("failure_category", optText(string(e.Category))),
		mem("command", cmdValue(e.Command)),
		mem("exit_code", optInt(e.ExitCode)),
		mem("value", optFloat(e.Value)),
		mem("baseline", optFloat(e.Baseline)),
		mem("delta", optFloat(e.Delta)),
		mem("evidence_sha256", optText(e.MetricSHA256)),
		mem("details", detailsValue(e.Details)),
		mem("blocked_by", strArray(sortedCopy(e.BlockedBy))),
		mem("output_tail", objects.String(utf8Text(string(e.Output)))),
		mem("attempts", attemptsValue(e.Attempts, timing)),
		mem("findings", findingsValue(e.Findings)),
		mem("rubric_runs", runsValue(e.Runs)),
	}
	if timing {
		m = append(m, mem("started_at", objects.String(e.Started.UTC().Format(time.RFC3339Nano))),
			mem("duration_ms", objects.Int(e.Duration.Milliseconds())))
	}
	return objects.ObjectValue(m...)
}

func utf8Text(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func cmdValue(cmd []string) objects.Value {
	if cmd == nil {
		return objects.Null()
	}
	out := make([]string, len(cmd))
	for i, c := range cmd {
		out[i] = utf8Text(c)
	}
	return strArray(out)
}

func optInt(p *int) objects.Value {
	if p == nil {
		return objects.Null()
	}
	return objects.Int(int64(*p))
}

func optFloat(p *float64) objects.Value {
	if p == nil {
		return objects.Null()
	}
	return objects.Float(*p)
}

func detailsValue(d map[string]string) objects.Value {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	m := make([]objects.Member, 0, len(keys))
	for _, k := range keys {
		m = append(m, mem(utf8Text(k), objects.String(utf8Text(d[k]))))
	}
	return objects.ObjectValue(m...)
}

func attemptsValue(as []Attempt, timing bool) objects.Value {
	out := make([]objects.Value, 0, len(as))
	for _, a := range as {
		m := []objects.Member{mem("attempt", objects.Int(int64(a.Number))), mem("exit_code", optInt(a.ExitCode)),
			mem("output_tail", objects.String(utf8Text(string(a.Output)))), mem("error", optText(utf8Text(a.Error)))}
		if timing {
			m = append(m, mem("started_at", objects.String(a.Started.UTC().Format(time.RFC3339Nano))),
				mem("duration_ms", objects.Int(a.Duration.Milliseconds())))
		}
		out = append(out, objects.ObjectValue(m...))
	}
	return objects.Array(out...)
}

func findingsValue(fs []Finding) objects.Value {
	out := make([]objects.Value, 0, len(fs))
	for _, f := range fs {
		m := []objects.Member{mem("message", objects.String(utf8Text(f.Message)))}
		if f.FilePath != "" {
			m = append(m, mem("file_path", objects.String(utf8Text(f.FilePath))))
		}
		if f.Line > 0 {
			m = append(m, mem("line", objects.Int(int64(f.Line))))
		}
		if f.Suggestion != "" {
			m = append(m, mem("suggestion", objects.String(utf8Text(f.Suggestion))))
		}
		out = append(out, objects.ObjectValue(m...))
	}
	return objects.Array(out...)
}

func runsValue(rs []RubricRun) objects.Value {
	out := make([]objects.Value, 0, len(rs))
	for _, r := range rs {
		out = append(out, objects.ObjectValue(mem("verdict", objects.String(string(r.Verdict))),
			mem("score", optFloat(r.Score)), mem("rationale", objects.String(utf8Text(r.Rationale))),
			mem("error", optText(utf8Text(r.Error))), mem("metadata", optText(r.Metadata))))
	}
	return objects.Array(out...)
}
