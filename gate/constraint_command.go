package gate

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

func defaultCommand() *CommandSpec {
	return &CommandSpec{Cwd: ".", SuccessCodes: []int{0}, PendingCodes: []int{75}}
}

// commandField reads a command field (SPEC §1 kind command); it reports
// false for a key that is not one.
func (l *loader) commandField(p pair, where string, cs *CommandSpec) bool {
	switch p.key {
	case "command":
		l.commandValue(p, where, &cs.Argv, &cs.Script)
	case "shell":
		if v, ok := l.boolean(p, where); ok {
			cs.Shell = v
		}
	case "cwd":
		if s, ok := l.relPath(p, where); ok {
			cs.Cwd = s
		}
	case "success_codes":
		if v, ok := l.intList(p, where); ok {
			cs.SuccessCodes = v
		}
	case "pending_codes":
		if v, ok := l.intList(p, where); ok {
			cs.PendingCodes = v
		}
	case "retry":
		cs.Retry = l.retry(p, where)
	default:
		return false
	}
	return true
}

// commandValue reads an argv list (non-empty, no empty program) or a
// string; which one is checked against shell later.
func (l *loader) commandValue(p pair, where string, argv *[]string, script *string) {
	if p.v.Kind == yaml.ScalarNode && p.v.ShortTag() == "!!str" {
		if s, ok := l.nonEmptyStr(p, where); ok {
			*script = s
		}
		return
	}
	list, ok := l.strList(p, where)
	if !ok {
		return
	}
	if len(list) == 0 || list[0] == "" {
		l.errorf(p.v, "%s in %s must not be empty", p.key, where)
		return
	}
	*argv = list
}

// retry reads a CommandRetryPolicy block.
func (l *loader) retry(p pair, where string) *RetryPolicy {
	where += " retry"
	r := &RetryPolicy{MaxAttempts: 2, ExitCodes: []int{1}, RetryStartErrors: true, DelaySeconds: 1}
	pairs, _ := l.mapping(p.v, where)
	for _, q := range pairs {
		switch q.key {
		case "max_attempts":
			if v, ok := l.integer(q, where, 2, 10); ok {
				r.MaxAttempts = v
			}
		case "exit_codes":
			if v, ok := l.intList(q, where); ok {
				r.ExitCodes = v
			}
		case "retry_timeouts":
			if v, ok := l.boolean(q, where); ok {
				r.RetryTimeouts = v
			}
		case "retry_start_errors":
			if v, ok := l.boolean(q, where); ok {
				r.RetryStartErrors = v
			}
		case "delay_seconds":
			if v, ok := l.rangedNumber(q, where, 0, 300, false); ok {
				r.DelaySeconds = v
			}
		case "total_timeout_seconds":
			if isNull(q.v) {
				r.TotalTimeoutSeconds = nil
			} else if v, ok := l.rangedNumber(q, where, 0, 7200, true); ok {
				r.TotalTimeoutSeconds = &v
			}
		default:
			l.unknown(q, where)
		}
	}
	return r
}

// checkCommand applies the command cross-field rules: a string needs
// shell; success and pending codes are disjoint; retry codes overlap
// neither; retry_timeouts needs a larger total budget.
func (l *loader) checkCommand(n *yaml.Node, where string, c *Constraint) {
	cs := c.Command
	if cs.Script != "" && !cs.Shell {
		l.errorf(n, "%s: a command string requires shell: true (or use an argv list)", where)
	}
	if overlap(cs.SuccessCodes, cs.PendingCodes) {
		l.errorf(n, "%s: success_codes and pending_codes overlap", where)
	}
	if r := cs.Retry; r != nil {
		if overlap(r.ExitCodes, cs.SuccessCodes) || overlap(r.ExitCodes, cs.PendingCodes) {
			l.errorf(n, "%s: retry exit_codes overlap success_codes or pending_codes", where)
		}
		if r.RetryTimeouts && (r.TotalTimeoutSeconds == nil || *r.TotalTimeoutSeconds <= c.TimeoutSeconds) {
			l.errorf(n, "%s: retry_timeouts requires total_timeout_seconds greater than timeout_seconds", where)
		}
	}
}

func overlap(a, b []int) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
