package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"
)

// LoadContract parses and validates contract file bytes: ConstraintLoop's
// schema version 1, strictly. Every unknown key, duplicate key, wrong type,
// out-of-range value, broken reference, dependency cycle or phase mismatch
// is reported with its line; the error wraps ErrContract and, through
// errors.Join, one *ContractError per problem (at most 50).
//
// YAML anchors, aliases, merge keys and multiple documents are refused, and
// data larger than MaxContractBytes is refused before parsing. Malformed
// YAML is reported by location only, never echoing source text (SPEC §1:
// the text may hold credentials).
func LoadContract(data []byte) (*Contract, error) {
	if len(data) > MaxContractBytes {
		return nil, fmt.Errorf("%w: contract is %d bytes, more than the %d byte limit", ErrContract, len(data), MaxContractBytes)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: contract is empty", ErrContract)
		}
		return nil, fmt.Errorf("%w: malformed YAML%s", ErrContract, yamlErrorLine(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: contract must be a single YAML document", ErrContract)
	}
	l := &loader{}
	c := l.contract(&doc)
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *ContractError) int { return a.Line - b.Line })
		errs := make([]error, 0, len(l.errs)+1)
		errs = append(errs, ErrContract)
		for _, e := range l.errs {
			errs = append(errs, e)
		}
		return nil, errors.Join(errs...)
	}
	d, err := contractDigest(c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrContract, err)
	}
	c.Digest = d
	return c, nil
}

// yamlErrorLine extracts "yaml: line N:" as " at line N" from a parser
// error without repeating the message, which may quote the source.
func yamlErrorLine(err error) string {
	var line int
	if _, e := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); e == nil && line > 0 {
		return fmt.Sprintf(" at line %d", line)
	}
	return ""
}

// contract reads the root mapping (SPEC §1 Root).
func (l *loader) contract(doc *yaml.Node) *Contract {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		l.errorf(doc, "contract must be a YAML document")
		return nil
	}
	if !l.checkNodes(doc) {
		return nil
	}
	root := doc.Content[0]
	pairs, _ := l.mapping(root, "contract")
	if root.Kind != yaml.MappingNode {
		return nil
	}
	c := &Contract{Version: 1, Settings: DefaultSettings()}
	var constraintsNode *yaml.Node
	for _, p := range pairs {
		switch p.key {
		case "version":
			if v, ok := l.integer(p, "contract", 1, 1); ok {
				c.Version = v
			}
		case "name":
			if v, ok := l.str(p, "contract"); ok {
				if len(v) > MaxContractName || !idPattern().MatchString(v) {
					l.errorf(p.v, "contract name %q must be 1-%d of A-Z a-z 0-9 . _ -", v, MaxContractName)
				}
				c.Name = v
			}
		case "settings":
			l.settings(p.v, &c.Settings)
		case "constraints":
			constraintsNode = p.v
			c.Constraints = l.constraints(p)
		case "evaluators":
			c.Evaluators = l.evaluators(p)
		case "loops":
			c.Loops = l.loops(p)
		default:
			l.unknown(p, "contract")
		}
	}
	if constraintsNode == nil {
		l.errorf(root, "contract has no constraints mapping")
		return c
	}
	l.checkReferences(c)
	return c
}

// settings reads ContractSettings with their ranges (SPEC §1 settings).
func (l *loader) settings(n *yaml.Node, s *Settings) {
	const where = "settings"
	pairs, _ := l.mapping(n, where)
	for _, p := range pairs {
		switch p.key {
		case "max_auto_retries":
			if v, ok := l.integer(p, where, 0, 20); ok {
				s.MaxAutoRetries = v
			}
		case "concurrency":
			if v, ok := l.integer(p, where, 1, 32); ok {
				s.Concurrency = v
			}
		case "evidence_output_limit":
			if v, ok := l.integer(p, where, 1024, 1048576); ok {
				s.EvidenceOutputLimit = v
			}
		case "hook_output_limit":
			if v, ok := l.integer(p, where, 512, 32768); ok {
				s.HookOutputLimit = v
			}
		case "evaluation_bundle_limit":
			if v, ok := l.integer(p, where, 4096, 2097152); ok {
				s.EvaluationBundleLimit = v
			}
		case "progress_interval_seconds":
			if v, ok := l.rangedNumber(p, where, 0.1, 300, false); ok {
				s.ProgressIntervalSeconds = v
			}
		default:
			l.unknown(p, where)
		}
	}
}

// idKey checks an identifier key of constraints, evaluators or loops.
func (l *loader) idKey(p pair, what string) bool {
	if !idPattern().MatchString(p.key) {
		l.errorf(p.k, "%s id %q must be non-empty and use only A-Z a-z 0-9 . _ -", what, p.key)
		return false
	}
	return true
}
