package gate

import (
	"path"
	"strings"
)

// constraints reads the constraints mapping, dispatching on kind.
func (l *loader) constraints(p pair) []*Constraint {
	pairs, _ := l.mapping(p.v, "constraints")
	var out []*Constraint
	for _, cp := range pairs {
		if !l.idKey(cp, "constraint") {
			continue
		}
		if c := l.constraint(cp); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// constraint reads one constraint: its kind first, then every field
// either as a common field or as one of the kind's own.
func (l *loader) constraint(cp pair) *Constraint {
	where := "constraint " + cp.key
	fields, ok := l.mapping(cp.v, where)
	if !ok && fields == nil {
		return nil
	}
	c := &Constraint{ID: cp.key, Line: cp.k.Line, Enforcement: Required,
		Phases: []Phase{PhaseStop, PhaseCI}, Watch: []string{"**/*"}, Needs: []string{},
		TimeoutSeconds: 300, Enabled: true}
	var kindPair *pair
	for i := range fields {
		if fields[i].key == "kind" {
			kindPair = &fields[i]
		}
	}
	if kindPair == nil {
		l.errorf(cp.k, "%s has no kind (command, metric, ratchet, artifact or rubric)", where)
		return nil
	}
	k, ok := l.oneOf(*kindPair, where, "command", "metric", "ratchet", "artifact", "rubric")
	if !ok {
		return nil
	}
	c.Kind = Kind(k)
	var own func(pair) bool
	switch c.Kind {
	case KindCommand:
		c.Command = defaultCommand()
		own = func(p pair) bool { return l.commandField(p, where, c.Command) }
	case KindMetric:
		c.Command, c.Parser = defaultCommand(), nil
		own = func(p pair) bool { return l.metricField(p, where, c) }
	case KindRatchet:
		c.Command = defaultCommand()
		c.Ratchet = &RatchetSpec{Mode: "must_not_increase", BaselineFile: "constraintloop-baselines.json"}
		own = func(p pair) bool { return l.ratchetField(p, where, c) }
	case KindArtifact:
		c.Artifact = &ArtifactSpec{Format: "any", NonEmpty: true, Evidence: []NamedPath{}}
		own = func(p pair) bool { return l.artifactField(p, where, c.Artifact) }
	case KindRubric:
		c.Rubric = &RubricSpec{Include: []string{"**/*"}, Runs: 1}
		own = func(p pair) bool { return l.rubricField(p, where, c.Rubric) }
	}
	seen := map[string]bool{}
	for _, p := range fields {
		seen[p.key] = true
		if p.key == "kind" || l.commonField(p, where, c) || own(p) {
			continue
		}
		l.unknown(p, where)
	}
	l.finishConstraint(cp, where, c, seen)
	return c
}

// commonField reads a BaseConstraint field; it reports false for a key
// that is not one.
func (l *loader) commonField(p pair, where string, c *Constraint) bool {
	switch p.key {
	case "description":
		if isNull(p.v) {
			c.Description = nil
		} else if s, ok := l.str(p, where); ok {
			c.Description = &s
		}
	case "enforcement":
		if s, ok := l.oneOf(p, where, "required", "advisory"); ok {
			c.Enforcement = Enforcement(s)
		}
	case "phases":
		if ps, ok := l.phases(p, where); ok {
			c.Phases = ps
		}
	case "watch":
		if g, ok := l.globs(p, where); ok {
			c.Watch = g
		}
	case "needs":
		if ns, ok := l.strList(p, where); ok {
			c.Needs = dedupe(ns)
		}
	case "timeout_seconds":
		if v, ok := l.rangedNumber(p, where, 0, 7200, true); ok {
			c.TimeoutSeconds = v
		}
	case "enabled":
		if v, ok := l.boolean(p, where); ok {
			c.Enabled = v
		}
	default:
		return false
	}
	return true
}

func (l *loader) phases(p pair, where string) ([]Phase, bool) {
	names, ok := l.strList(p, where)
	if !ok {
		return nil, false
	}
	out := make([]Phase, 0, len(names))
	for _, n := range dedupe(names) {
		ph, err := ParsePhase(n)
		if err != nil {
			l.errorf(p.v, "%s in %s: %v", p.key, where, err)
			return nil, false
		}
		out = append(out, ph)
	}
	return out, true
}

// globs reads a non-empty list of project-relative POSIX globs (SPEC §1
// watch rules): no empty pattern, no absolute path, no ".." part, no
// backslash, and (for Go's matcher) no malformed bracket expression.
func (l *loader) globs(p pair, where string) ([]string, bool) {
	gs, ok := l.strList(p, where)
	if !ok {
		return nil, false
	}
	if len(gs) == 0 {
		l.errorf(p.v, "%s in %s must not be empty", p.key, where)
		return nil, false
	}
	for _, g := range gs {
		if msg := checkGlob(g); msg != "" {
			l.errorf(p.v, "%s in %s: pattern %q %s", p.key, where, g, msg)
			return nil, false
		}
	}
	return gs, true
}

// checkGlob returns why g is not a project-relative POSIX glob, or "".
func checkGlob(g string) string {
	switch {
	case g == "":
		return "is empty"
	case strings.HasPrefix(g, "/"):
		return "is absolute"
	case strings.Contains(g, `\`):
		return "contains a backslash"
	}
	for _, part := range strings.Split(g, "/") {
		if part == ".." {
			return "has a .. part"
		}
		if _, err := path.Match(part, ""); err != nil {
			return "is malformed"
		}
	}
	return ""
}

// relPath reads a project-relative POSIX path (baseline, artifact, file).
func (l *loader) relPath(p pair, where string) (string, bool) {
	s, ok := l.nonEmptyStr(p, where)
	if !ok {
		return "", false
	}
	if msg := checkRelPath(s); msg != "" {
		l.errorf(p.v, "%s in %s: path %q %s", p.key, where, s, msg)
		return "", false
	}
	return s, true
}

// checkRelPath returns why s is not a project-relative POSIX path, or "".
func checkRelPath(s string) string {
	switch {
	case strings.HasPrefix(s, "/"):
		return "is absolute"
	case strings.Contains(s, `\`):
		return "contains a backslash"
	case strings.ContainsRune(s, 0):
		return "contains a NUL byte"
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return "escapes the project (a .. part)"
		}
	}
	return ""
}

// finishConstraint applies the cross-field rules of each kind.
func (l *loader) finishConstraint(cp pair, where string, c *Constraint, seen map[string]bool) {
	need := func(key string) {
		if !seen[key] {
			l.errorf(cp.k, "%s (kind %s) requires %s", where, c.Kind, key)
		}
	}
	switch c.Kind {
	case KindCommand:
		need("command")
	case KindMetric:
		need("command")
		need("parser")
		need("threshold")
	case KindRatchet:
		need("command")
		need("parser")
	case KindArtifact:
		need("path")
		if len(c.Artifact.Evidence) > 0 && c.Artifact.Format != "json" {
			l.errorf(cp.k, "%s: artifact evidence requires format json", where)
		}
	case KindRubric:
		need("evaluator")
		need("rubric")
		l.checkQuorum(cp.k, where, c)
	}
	if c.Command != nil {
		l.checkCommand(cp.k, where, c)
	}
}

func dedupe(s []string) []string {
	out := make([]string, 0, len(s))
	seen := make(map[string]bool, len(s))
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
