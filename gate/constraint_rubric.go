package gate

import (
	"go.yaml.in/yaml/v3"

	"github.com/tinehq/tine/internal/llm"
)

// rubricField reads a rubric field (SPEC §1 kind rubric).
func (l *loader) rubricField(p pair, where string, r *RubricSpec) bool {
	switch p.key {
	case "evaluator":
		if s, ok := l.nonEmptyStr(p, where); ok {
			r.Evaluator = s
		}
	case "rubric":
		if s, ok := l.nonEmptyStr(p, where); ok {
			r.Text = s
		}
	case "include":
		if g, ok := l.globs(p, where); ok {
			r.Include = g
		}
	case "runs":
		if v, ok := l.integer(p, where, 1, 9); ok {
			r.Runs = v
		}
	case "pass_quorum":
		if isNull(p.v) {
			r.PassQuorum = nil
		} else if v, ok := l.integer(p, where, 1, 9); ok {
			r.PassQuorum = &v
		}
	default:
		return false
	}
	return true
}

// checkQuorum applies SPEC §1's rubric rules: a required rubric runs at
// least twice with an explicit strict-majority quorum; any quorum is at
// most runs.
func (l *loader) checkQuorum(n *yaml.Node, where string, c *Constraint) {
	r := c.Rubric
	if r.PassQuorum != nil && *r.PassQuorum > r.Runs {
		l.errorf(n, "%s: pass_quorum %d exceeds runs %d", where, *r.PassQuorum, r.Runs)
	}
	if c.Enforcement != Required {
		return
	}
	if r.Runs < 2 {
		l.errorf(n, "%s: a required rubric needs runs >= 2", where)
	}
	if r.PassQuorum == nil || *r.PassQuorum <= r.Runs/2 {
		l.errorf(n, "%s: a required rubric needs an explicit pass_quorum greater than runs/2 (a strict majority)", where)
	}
}

// evaluators reads the evaluators mapping (SPEC §1 evaluators).
func (l *loader) evaluators(p pair) []*Evaluator {
	pairs, _ := l.mapping(p.v, "evaluators")
	var out []*Evaluator
	for _, ep := range pairs {
		if !l.idKey(ep, "evaluator") {
			continue
		}
		if e := l.evaluator(ep); e != nil {
			out = append(out, e)
		}
	}
	return out
}

func (l *loader) evaluator(ep pair) *Evaluator {
	where := "evaluator " + ep.key
	fields, _ := l.mapping(ep.v, where)
	if ep.v.Kind != yaml.MappingNode {
		return nil
	}
	e := &Evaluator{ID: ep.key, Line: ep.k.Line, TimeoutSeconds: 60}
	for _, f := range fields {
		if f.key == "type" {
			if s, ok := l.oneOf(f, where, "command", "openai", "anthropic"); ok {
				e.Type = s
			}
		}
	}
	switch e.Type {
	case "":
		l.errorf(ep.k, "%s has no valid type (command, openai or anthropic)", where)
		return nil
	case "openai":
		e.APIKeyEnv, e.MaxAttempts, e.MaxOutputTokens, e.ReasoningEffort = "OPENAI_API_KEY", 2, 2000, "minimal"
	case "anthropic":
		e.APIKeyEnv, e.MaxAttempts, e.MaxOutputTokens = "ANTHROPIC_API_KEY", 2, 2048
	}
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.key] = true
		if f.key == "type" || l.evaluatorField(f, where, e) {
			continue
		}
		l.unknown(f, where)
	}
	if e.Type == "command" {
		if !seen["command"] {
			l.errorf(ep.k, "%s (type command) requires command", where)
		}
		if e.Script != "" && !e.Shell {
			l.errorf(ep.k, "%s: a command string requires shell: true (or use an argv list)", where)
		}
	} else if !seen["model"] {
		l.errorf(ep.k, "%s (type %s) requires model", where, e.Type)
	}
	return e
}

// evaluatorField reads one field valid for the evaluator's type.
func (l *loader) evaluatorField(f pair, where string, e *Evaluator) bool {
	provider := e.Type != "command"
	switch {
	case f.key == "timeout_seconds":
		if v, ok := l.rangedNumber(f, where, 0, 600, true); ok {
			e.TimeoutSeconds = v
		}
	case f.key == "command" && !provider:
		l.commandValue(f, where, &e.Argv, &e.Script)
	case f.key == "shell" && !provider:
		if v, ok := l.boolean(f, where); ok {
			e.Shell = v
		}
	case f.key == "model" && provider:
		if s, ok := l.nonEmptyStr(f, where); ok {
			e.Model = s
		}
	case f.key == "api_key_env" && provider:
		if s, ok := l.nonEmptyStr(f, where); ok {
			e.APIKeyEnv = s
		}
	case f.key == "max_attempts" && provider:
		if v, ok := l.integer(f, where, 1, 5); ok {
			e.MaxAttempts = v
		}
	case f.key == "max_output_tokens" && provider:
		if v, ok := l.integer(f, where, 256, 16384); ok {
			e.MaxOutputTokens = v
		}
	case f.key == "reasoning_effort" && e.Type == "openai":
		if s, ok := l.oneOf(f, where, "minimal", "low", "medium", "high"); ok {
			e.ReasoningEffort, e.ReasoningEffortSet = s, true
		}
	case f.key == "base_url" && provider:
		if s, ok := l.nonEmptyStr(f, where); ok {
			if err := llm.CheckBaseURL(s); err != nil {
				l.errorf(f.k, "%s: base_url: %v", where, err)
			} else {
				e.BaseURL = s
			}
		}
	default:
		return false
	}
	return true
}
