package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// SpecValue returns the constraint's validated spec, defaults included, as
// a JSON value: the "canonical constraint spec" that the input digest
// frames (SPEC §2: canonical_json(spec.model_dump())). Field names are
// the contract's own.
func (c *Constraint) SpecValue() objects.Value {
	m := []objects.Member{
		mem("kind", objects.String(string(c.Kind))),
		mem("description", optString(c.Description)),
		mem("enforcement", objects.String(string(c.Enforcement))),
		mem("phases", phaseArray(c.Phases)),
		mem("watch", strArray(c.Watch)),
		mem("needs", strArray(c.Needs)),
		mem("timeout_seconds", objects.Float(c.TimeoutSeconds)),
		mem("enabled", objects.Bool(c.Enabled)),
	}
	if cs := c.Command; cs != nil {
		m = append(m, commandMembers(cs)...)
	}
	if p := c.Parser; p != nil {
		m = append(m, mem("parser", parserValue(p)))
	}
	if t := c.Threshold; t != nil {
		m = append(m, mem("threshold", objects.ObjectValue(mem("operator", objects.String(t.Operator)), mem("value", objects.Float(t.Value)))))
	}
	if r := c.Ratchet; r != nil {
		m = append(m, mem("mode", objects.String(r.Mode)), mem("baseline_file", objects.String(r.BaselineFile)))
	}
	if a := c.Artifact; a != nil {
		ev := make([]objects.Member, 0, len(a.Evidence))
		for _, e := range a.Evidence {
			ev = append(ev, mem(e.Name, objects.String(e.Path)))
		}
		m = append(m, mem("path", objects.String(a.Path)), mem("format", objects.String(a.Format)),
			mem("non_empty", objects.Bool(a.NonEmpty)), mem("evidence", objects.ObjectValue(ev...)))
	}
	if r := c.Rubric; r != nil {
		q := objects.Null()
		if r.PassQuorum != nil {
			q = objects.Int(int64(*r.PassQuorum))
		}
		m = append(m, mem("evaluator", objects.String(r.Evaluator)), mem("rubric", objects.String(r.Text)),
			mem("include", strArray(r.Include)), mem("runs", objects.Int(int64(r.Runs))), mem("pass_quorum", q))
	}
	return objects.ObjectValue(m...)
}

// CanonicalSpec returns the v3 canonical JSON of SpecValue.
func (c *Constraint) CanonicalSpec() ([]byte, error) {
	b, err := objects.CanonV3(c.SpecValue())
	if err != nil {
		return nil, fmt.Errorf("constraint %s: canonical spec: %w", c.ID, err)
	}
	return b, nil
}

func commandMembers(cs *CommandSpec) []objects.Member {
	cmd := objects.String(cs.Script)
	if cs.Script == "" {
		cmd = strArray(cs.Argv)
	}
	retry := objects.Null()
	if r := cs.Retry; r != nil {
		total := objects.Null()
		if r.TotalTimeoutSeconds != nil {
			total = objects.Float(*r.TotalTimeoutSeconds)
		}
		retry = objects.ObjectValue(mem("max_attempts", objects.Int(int64(r.MaxAttempts))),
			mem("exit_codes", intArray(r.ExitCodes)), mem("retry_timeouts", objects.Bool(r.RetryTimeouts)),
			mem("retry_start_errors", objects.Bool(r.RetryStartErrors)), mem("delay_seconds", objects.Float(r.DelaySeconds)),
			mem("total_timeout_seconds", total))
	}
	return []objects.Member{mem("command", cmd), mem("shell", objects.Bool(cs.Shell)), mem("cwd", objects.String(cs.Cwd)),
		mem("success_codes", intArray(cs.SuccessCodes)), mem("pending_codes", intArray(cs.PendingCodes)), mem("retry", retry)}
}

func parserValue(p *MetricParser) objects.Value {
	group := objects.Int(int64(p.GroupIndex))
	if p.GroupName != "" {
		group = objects.String(p.GroupName)
	}
	return objects.ObjectValue(mem("type", objects.String(p.Type)), mem("path", optText(p.Path)),
		mem("pattern", optText(p.Pattern)), mem("group", group), mem("source", objects.String(p.Source)),
		mem("file", optText(p.File)))
}

// contractValue is the whole validated model as JSON.
func contractValue(c *Contract) objects.Value {
	s := c.Settings
	settings := objects.ObjectValue(mem("max_auto_retries", objects.Int(int64(s.MaxAutoRetries))),
		mem("concurrency", objects.Int(int64(s.Concurrency))), mem("evidence_output_limit", objects.Int(int64(s.EvidenceOutputLimit))),
		mem("hook_output_limit", objects.Int(int64(s.HookOutputLimit))), mem("evaluation_bundle_limit", objects.Int(int64(s.EvaluationBundleLimit))),
		mem("progress_interval_seconds", objects.Float(s.ProgressIntervalSeconds)))
	var cons, evs, loops []objects.Member
	for _, k := range c.Constraints {
		cons = append(cons, mem(k.ID, k.SpecValue()))
	}
	for _, e := range c.Evaluators {
		evs = append(evs, mem(e.ID, evaluatorValue(e)))
	}
	for _, lo := range c.Loops {
		loops = append(loops, mem(lo.ID, loopValue(lo)))
	}
	top := []objects.Member{mem("version", objects.Int(int64(c.Version))), mem("settings", settings),
		mem("constraints", objects.ObjectValue(cons...)), mem("evaluators", objects.ObjectValue(evs...)),
		mem("loops", objects.ObjectValue(loops...))}
	// The name is part of the identity when given (renaming a contract is
	// an edit, and a gate attestation's name is bound by its digest); a
	// contract without one keeps the digest it always had.
	if c.Name != "" {
		top = append(top, mem("name", objects.String(c.Name)))
	}
	return objects.ObjectValue(top...)
}

func evaluatorValue(e *Evaluator) objects.Value {
	m := []objects.Member{mem("type", objects.String(e.Type)), mem("timeout_seconds", objects.Float(e.TimeoutSeconds))}
	if e.Type == "command" {
		cmd := objects.String(e.Script)
		if e.Script == "" {
			cmd = strArray(e.Argv)
		}
		return objects.ObjectValue(append(m, mem("command", cmd), mem("shell", objects.Bool(e.Shell)))...)
	}
	m = append(m, mem("model", objects.String(e.Model)), mem("api_key_env", objects.String(e.APIKeyEnv)),
		mem("max_attempts", objects.Int(int64(e.MaxAttempts))), mem("max_output_tokens", objects.Int(int64(e.MaxOutputTokens))))
	if e.Type == "openai" {
		m = append(m, mem("reasoning_effort", objects.String(e.ReasoningEffort)))
	}
	if e.BaseURL != "" {
		// Absent unless set, so a ConstraintLoop contract keeps its digest.
		m = append(m, mem("base_url", objects.String(e.BaseURL)))
	}
	return objects.ObjectValue(m...)
}

func loopValue(lo *Loop) objects.Value {
	ch := objects.Null()
	if c := lo.Challenge; c != nil {
		ch = objects.ObjectValue(mem("count", objects.Int(int64(c.Count))), mem("max_rounds", objects.Int(int64(c.MaxRounds))),
			mem("max_continuations", objects.Int(int64(c.MaxContinuations))), mem("watch", strArray(c.Watch)),
			mem("domain_context", strArray(c.DomainContext)))
	}
	return objects.ObjectValue(mem("phase", objects.String(string(lo.Phase))), mem("interval_seconds", objects.Float(lo.IntervalSeconds)),
		mem("max_repair_attempts", objects.Int(int64(lo.MaxRepairAttempts))), mem("max_unchanged_repairs", objects.Int(int64(lo.MaxUnchangedRepairs))),
		mem("max_duration_seconds", objects.Float(lo.MaxDurationSeconds)), mem("on_pass", objects.String("stop")),
		mem("on_failure", objects.String("repair")), mem("on_pending", objects.String("wait")),
		mem("on_budget_exhausted", objects.String("human_required")), mem("challenge", ch))
}

// contractDigest is hex SHA-256 of the canonical whole-contract JSON. SPEC
// §1 defines it over Python's json.dumps; tine uses objects.CanonV3, so the
// hex differs from ConstraintLoop's while playing the same role.
func contractDigest(c *Contract) (string, error) {
	b, err := objects.CanonV3(contractValue(c))
	if err != nil {
		return "", fmt.Errorf("canonical contract: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func mem(k string, v objects.Value) objects.Member { return objects.Member{Key: k, Value: v} }

func optString(s *string) objects.Value {
	if s == nil {
		return objects.Null()
	}
	return objects.String(*s)
}

func optText(s string) objects.Value {
	if s == "" {
		return objects.Null()
	}
	return objects.String(s)
}

func strArray(s []string) objects.Value {
	out := make([]objects.Value, len(s))
	for i, x := range s {
		out[i] = objects.String(x)
	}
	return objects.Array(out...)
}

func intArray(s []int) objects.Value {
	out := make([]objects.Value, len(s))
	for i, x := range s {
		out[i] = objects.Int(int64(x))
	}
	return objects.Array(out...)
}

func phaseArray(ps []Phase) objects.Value {
	out := make([]objects.Value, len(ps))
	for i, p := range ps {
		out[i] = objects.String(string(p))
	}
	return objects.Array(out...)
}
