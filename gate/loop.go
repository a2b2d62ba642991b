package gate

import "go.yaml.in/yaml/v3"

// loops reads the loops mapping (SPEC §1 LoopConfig); every budget field
// is required and the action fields accept only their fixed literal.
func (l *loader) loops(p pair) []*Loop {
	pairs, _ := l.mapping(p.v, "loops")
	var out []*Loop
	for _, lp := range pairs {
		if !l.idKey(lp, "loop") {
			continue
		}
		if lo := l.loop(lp); lo != nil {
			out = append(out, lo)
		}
	}
	return out
}

// loopActions are the fixed action literals of a loop.
var loopActions = map[string]string{"on_pass": "stop", "on_failure": "repair", "on_pending": "wait", "on_budget_exhausted": "human_required"}

func (l *loader) loop(lp pair) *Loop {
	where := "loop " + lp.key
	fields, _ := l.mapping(lp.v, where)
	if lp.v.Kind != yaml.MappingNode {
		return nil
	}
	lo := &Loop{ID: lp.key, Line: lp.k.Line}
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.key] = true
		switch f.key {
		case "phase":
			if s, ok := l.oneOf(f, where, "change", "stop", "push", "ci"); ok {
				lo.Phase = Phase(s)
			}
		case "interval_seconds":
			if v, ok := l.rangedNumber(f, where, 0, 86400, true); ok {
				lo.IntervalSeconds = v
			}
		case "max_repair_attempts":
			if v, ok := l.integer(f, where, 1, 100); ok {
				lo.MaxRepairAttempts = v
			}
		case "max_unchanged_repairs":
			if v, ok := l.integer(f, where, 1, 100); ok {
				lo.MaxUnchangedRepairs = v
			}
		case "max_duration_seconds":
			if v, ok := l.rangedNumber(f, where, 0, 2592000, true); ok {
				lo.MaxDurationSeconds = v
			}
		case "on_pass", "on_failure", "on_pending", "on_budget_exhausted":
			l.oneOf(f, where, loopActions[f.key])
		case "challenge":
			lo.Challenge = l.challenge(f, where)
		default:
			l.unknown(f, where)
		}
	}
	for _, k := range []string{"phase", "interval_seconds", "max_repair_attempts", "max_unchanged_repairs", "max_duration_seconds"} {
		if !seen[k] {
			l.errorf(lp.k, "%s requires %s", where, k)
		}
	}
	if lo.Challenge != nil && lo.Phase != PhaseStop && lo.Phase != "" {
		l.errorf(lp.k, "%s: challenge is only allowed when phase is stop", where)
	}
	return lo
}

func (l *loader) challenge(f pair, where string) *Challenge {
	where += " challenge"
	ch := &Challenge{Count: 10, MaxRounds: 2, MaxContinuations: 8, Watch: []string{"**/*"}, DomainContext: []string{}}
	pairs, _ := l.mapping(f.v, where)
	for _, q := range pairs {
		switch q.key {
		case "count":
			if v, ok := l.integer(q, where, 1, 100); ok {
				ch.Count = v
			}
		case "max_rounds":
			if v, ok := l.integer(q, where, 1, 10); ok {
				ch.MaxRounds = v
			}
		case "max_continuations":
			if v, ok := l.integer(q, where, 1, 100); ok {
				ch.MaxContinuations = v
			}
		case "watch":
			if g, ok := l.globs(q, where); ok {
				ch.Watch = g
			}
		case "domain_context":
			if q.v.Kind == yaml.SequenceNode && len(q.v.Content) == 0 {
				ch.DomainContext = []string{}
			} else if g, ok := l.globs(q, where); ok {
				ch.DomainContext = g
			}
		default:
			l.unknown(q, where)
		}
	}
	return ch
}
