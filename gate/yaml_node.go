package gate

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// maxContractErrors bounds the problems one load reports.
const maxContractErrors = 50

// maxYAMLNodes bounds the node count walked by checkNodes, far above any
// real contract, so hostile input cannot make the walk unbounded.
const maxYAMLNodes = 200000

// loader collects contract problems with their lines.
type loader struct {
	errs []*ContractError
}

func (l *loader) errorf(n *yaml.Node, format string, args ...any) {
	if len(l.errs) >= maxContractErrors {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	l.errs = append(l.errs, &ContractError{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// checkNodes refuses anchors, aliases and merge keys anywhere in the
// document: a contract is plain data, and refusing them rules out the
// alias-expansion blow-up ("billion laughs") by construction.
func (l *loader) checkNodes(root *yaml.Node) bool {
	stack := []*yaml.Node{root}
	count := 0
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		if count > maxYAMLNodes {
			l.errorf(n, "contract has more than %d YAML nodes", maxYAMLNodes)
			return false
		}
		if n.Kind == yaml.AliasNode || n.Anchor != "" {
			l.errorf(n, "YAML anchors and aliases are not allowed in a contract")
			return false
		}
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge" {
			l.errorf(n, "YAML merge keys are not allowed in a contract")
			return false
		}
		stack = append(stack, n.Content...)
	}
	return true
}

// pair is one key/value of a mapping.
type pair struct {
	key string
	k   *yaml.Node
	v   *yaml.Node
}

// mapping returns the pairs of mapping node n, refusing duplicate and
// non-string keys; where names the mapping in messages.
func (l *loader) mapping(n *yaml.Node, where string) ([]pair, bool) {
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "%s must be a mapping", where)
		return nil, false
	}
	seen := make(map[string]bool, len(n.Content)/2)
	out := make([]pair, 0, len(n.Content)/2)
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			l.errorf(k, "%s has a key that is not a string", where)
			ok = false
			continue
		}
		if seen[k.Value] {
			l.errorf(k, "duplicate key %s in %s", k.Value, where)
			ok = false
			continue
		}
		seen[k.Value] = true
		out = append(out, pair{key: k.Value, k: k, v: v})
	}
	return out, ok
}

func (l *loader) unknown(p pair, where string) {
	l.errorf(p.k, "unknown key %s in %s", p.key, where)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func (l *loader) str(p pair, where string) (string, bool) {
	if p.v.Kind != yaml.ScalarNode || p.v.ShortTag() != "!!str" {
		l.errorf(p.v, "%s in %s must be a string", p.key, where)
		return "", false
	}
	return p.v.Value, true
}

// nonEmptyStr is str that also refuses "" and all-space text.
func (l *loader) nonEmptyStr(p pair, where string) (string, bool) {
	s, ok := l.str(p, where)
	if ok && strings.TrimSpace(s) == "" {
		l.errorf(p.v, "%s in %s must not be empty", p.key, where)
		return "", false
	}
	return s, ok
}

// boolean accepts YAML 1.2 booleans and the YAML 1.1 words PyYAML reads
// as booleans, so a contract ConstraintLoop accepted still loads.
func (l *loader) boolean(p pair, where string) (bool, bool) {
	if p.v.Kind == yaml.ScalarNode {
		switch p.v.Value {
		case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON":
			return true, true
		case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF":
			return false, true
		}
	}
	l.errorf(p.v, "%s in %s must be a boolean", p.key, where)
	return false, false
}

func (l *loader) integer(p pair, where string, lo, hi int) (int, bool) {
	if p.v.Kind != yaml.ScalarNode || p.v.ShortTag() != "!!int" {
		l.errorf(p.v, "%s in %s must be an integer", p.key, where)
		return 0, false
	}
	var i int64
	if err := p.v.Decode(&i); err != nil || i < int64(lo) || i > int64(hi) {
		l.errorf(p.v, "%s in %s must be an integer from %d to %d", p.key, where, lo, hi)
		return 0, false
	}
	return int(i), true
}

// number reads a finite int or float; numericStrings also admits a quoted
// number (SPEC §1: threshold values accept numeric strings).
func (l *loader) number(p pair, where string, numericStrings bool) (float64, bool) {
	bad := func() (float64, bool) {
		l.errorf(p.v, "%s in %s must be a finite number", p.key, where)
		return 0, false
	}
	if p.v.Kind != yaml.ScalarNode {
		return bad()
	}
	var f float64
	switch p.v.ShortTag() {
	case "!!int", "!!float":
		if err := p.v.Decode(&f); err != nil {
			return bad()
		}
	case "!!str":
		if !numericStrings || !numericText().MatchString(strings.TrimSpace(p.v.Value)) {
			return bad()
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(p.v.Value), 64)
		if err != nil {
			return bad()
		}
		f = v
	default:
		return bad()
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return bad()
	}
	return f, true
}

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

// numericText is a decimal number; it excludes "inf", "nan" and hex.
var numericText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)
})

// rangedSeconds reads a number in (lo, hi] (lo exclusive) or [lo, hi].
func (l *loader) rangedNumber(p pair, where string, lo, hi float64, loExclusive bool) (float64, bool) {
	f, ok := l.number(p, where, false)
	if !ok {
		return 0, false
	}
	if (loExclusive && f <= lo) || (!loExclusive && f < lo) || f > hi {
		open := "["
		if loExclusive {
			open = "("
		}
		l.errorf(p.v, "%s in %s must be in %s%g, %g]", p.key, where, open, lo, hi)
		return 0, false
	}
	return f, true
}

func (l *loader) seq(p pair, where string) ([]*yaml.Node, bool) {
	if p.v.Kind != yaml.SequenceNode {
		l.errorf(p.v, "%s in %s must be a list", p.key, where)
		return nil, false
	}
	return p.v.Content, true
}

func (l *loader) strList(p pair, where string) ([]string, bool) {
	items, ok := l.seq(p, where)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it.Kind != yaml.ScalarNode || it.ShortTag() != "!!str" {
			l.errorf(it, "%s in %s must be a list of strings", p.key, where)
			return nil, false
		}
		out = append(out, it.Value)
	}
	return out, true
}

func (l *loader) intList(p pair, where string) ([]int, bool) {
	items, ok := l.seq(p, where)
	if !ok {
		return nil, false
	}
	out := make([]int, 0, len(items))
	for _, it := range items {
		v, ok := l.integer(pair{key: p.key, k: p.k, v: it}, where, math.MinInt32, math.MaxInt32)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// oneOf reads a string that must be one of choices.
func (l *loader) oneOf(p pair, where string, choices ...string) (string, bool) {
	s, ok := l.str(p, where)
	if !ok {
		return "", false
	}
	for _, c := range choices {
		if s == c {
			return s, true
		}
	}
	l.errorf(p.v, "%s in %s must be one of %s, not %q", p.key, where, strings.Join(choices, ", "), s)
	return "", false
}

// idPattern is the identifier rule for constraints, evaluators and loops.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })
