package gate

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// metricField reads a metric field: command fields, parser, threshold.
func (l *loader) metricField(p pair, where string, c *Constraint) bool {
	switch p.key {
	case "parser":
		c.Parser = l.parser(p, where)
	case "threshold":
		c.Threshold = l.threshold(p, where)
	default:
		return l.commandField(p, where, c.Command)
	}
	return true
}

// parser reads a MetricParser block (SPEC §1 kind metric).
func (l *loader) parser(p pair, where string) *MetricParser {
	where += " parser"
	mp := &MetricParser{GroupIndex: 1, Source: "stdout"}
	pairs, ok := l.mapping(p.v, where)
	if !ok && pairs == nil {
		return nil
	}
	for _, q := range pairs {
		switch q.key {
		case "type":
			if s, ok := l.oneOf(q, where, "json", "regex"); ok {
				mp.Type = s
			}
		case "path":
			if s, ok := l.nonEmptyStr(q, where); ok {
				mp.Path = s
			}
		case "pattern":
			if s, ok := l.nonEmptyStr(q, where); ok {
				mp.Pattern = s
			}
		case "group":
			l.group(q, where, mp)
		case "source":
			if s, ok := l.oneOf(q, where, "stdout", "stderr", "file"); ok {
				mp.Source = s
			}
		case "file":
			if isNull(q.v) {
				mp.File = ""
			} else if s, ok := l.relPath(q, where); ok {
				mp.File = s
			}
		default:
			l.unknown(q, where)
		}
	}
	l.checkParser(p.v, where, mp)
	return mp
}

func (l *loader) group(q pair, where string, mp *MetricParser) {
	if q.v.Kind == yaml.ScalarNode && q.v.ShortTag() == "!!int" {
		if v, ok := l.integer(q, where, 0, 1000); ok {
			mp.GroupIndex = v
		}
		return
	}
	if s, ok := l.nonEmptyStr(q, where); ok {
		mp.GroupName = s
	}
}

// checkParser applies the parser cross-field rules. Patterns use Go's RE2
// syntax; a Python-only construct (a backreference, a lookaround) is a
// contract error rather than a silent mismatch.
func (l *loader) checkParser(n *yaml.Node, where string, mp *MetricParser) {
	switch mp.Type {
	case "":
		l.errorf(n, "%s requires type (json or regex)", where)
	case "json":
		if mp.Path == "" {
			l.errorf(n, "%s: type json requires path", where)
		}
	case "regex":
		if mp.Pattern == "" {
			l.errorf(n, "%s: type regex requires pattern", where)
			break
		}
		re, err := regexp.Compile("(?m)" + mp.Pattern)
		if err != nil {
			l.errorf(n, "%s: pattern does not compile: %v", where, err)
			break
		}
		if mp.GroupName != "" && re.SubexpIndex(mp.GroupName) < 0 {
			l.errorf(n, "%s: pattern has no group named %q", where, mp.GroupName)
		} else if mp.GroupName == "" && mp.GroupIndex > re.NumSubexp() {
			l.errorf(n, "%s: pattern has no group %d", where, mp.GroupIndex)
		}
	}
	if mp.Source == "file" && mp.File == "" {
		l.errorf(n, "%s: source file requires file", where)
	}
}

// threshold reads {operator, value}.
func (l *loader) threshold(p pair, where string) *Threshold {
	where += " threshold"
	t := &Threshold{}
	pairs, _ := l.mapping(p.v, where)
	var haveOp, haveValue bool
	for _, q := range pairs {
		switch q.key {
		case "operator":
			if s, ok := l.oneOf(q, where, "gt", "gte", "lt", "lte", "eq"); ok {
				t.Operator, haveOp = s, true
			}
		case "value":
			if v, ok := l.number(q, where, true); ok {
				t.Value, haveValue = v, true
			}
		default:
			l.unknown(q, where)
		}
	}
	if p.v.Kind == yaml.MappingNode && (!haveOp || !haveValue) {
		l.errorf(p.v, "%s requires operator and value", where)
	}
	return t
}

// ratchetField reads a ratchet field: command fields, parser, mode,
// baseline_file (SPEC §1 kind ratchet).
func (l *loader) ratchetField(p pair, where string, c *Constraint) bool {
	switch p.key {
	case "parser":
		c.Parser = l.parser(p, where)
	case "mode":
		if s, ok := l.oneOf(p, where, "must_not_increase", "must_not_decrease"); ok {
			c.Ratchet.Mode = s
		}
	case "baseline_file":
		if s, ok := l.relPath(p, where); ok {
			c.Ratchet.BaselineFile = s
		}
	default:
		return l.commandField(p, where, c.Command)
	}
	return true
}

// artifactField reads an artifact field (SPEC §1 kind artifact).
func (l *loader) artifactField(p pair, where string, a *ArtifactSpec) bool {
	switch p.key {
	case "path":
		if s, ok := l.relPath(p, where); ok {
			a.Path = s
		}
	case "format":
		if s, ok := l.oneOf(p, where, "any", "json", "junit"); ok {
			a.Format = s
		}
	case "non_empty":
		if v, ok := l.boolean(p, where); ok {
			a.NonEmpty = v
		}
	case "evidence":
		pairs, _ := l.mapping(p.v, where+" evidence")
		for _, q := range pairs {
			s, ok := l.nonEmptyStr(q, where+" evidence")
			if ok && strings.TrimSpace(q.key) != "" {
				a.Evidence = append(a.Evidence, NamedPath{Name: q.key, Path: s})
			} else if ok {
				l.errorf(q.k, "evidence names in %s must not be empty", where)
			}
		}
	default:
		return false
	}
	return true
}
