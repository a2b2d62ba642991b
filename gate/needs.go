package gate

import (
	"fmt"
	"slices"
	"strings"
)

// checkReferences applies the contract-level rules: every need exists, the
// needs graph is acyclic (the error names the cycle), an enabled dependent
// has enabled prerequisites whose phases cover its own, every rubric names
// an evaluator, at most one stop loop, and each loop's phase has an enabled
// constraint (SPEC §1 needs rules, loops).
func (l *loader) checkReferences(c *Contract) {
	byID := make(map[string]*Constraint, len(c.Constraints))
	for _, k := range c.Constraints {
		byID[k.ID] = k
	}
	for _, k := range c.Constraints {
		for _, n := range k.Needs {
			dep := byID[n]
			if dep == nil {
				l.errs = appendErr(l.errs, k.Line, "constraint %s needs unknown constraint %s", k.ID, n)
				continue
			}
			if !k.Enabled {
				continue
			}
			if !dep.Enabled {
				l.errs = appendErr(l.errs, k.Line, "constraint %s is enabled but needs disabled constraint %s", k.ID, n)
			}
			for _, p := range k.Phases {
				if !slices.Contains(dep.Phases, p) {
					l.errs = appendErr(l.errs, k.Line, "constraint %s runs in phase %s but its need %s does not", k.ID, p, n)
				}
			}
		}
		if k.Rubric != nil && k.Rubric.Evaluator != "" && c.Evaluator(k.Rubric.Evaluator) == nil {
			l.errs = appendErr(l.errs, k.Line, "constraint %s uses unknown evaluator %s", k.ID, k.Rubric.Evaluator)
		}
	}
	if cyc := findCycle(c.Constraints, byID); cyc != nil {
		l.errs = appendErr(l.errs, byID[cyc[0]].Line, "needs form a cycle: %s", strings.Join(cyc, " -> "))
	}
	stopLoops := 0
	for _, lo := range c.Loops {
		if lo.Phase == PhaseStop {
			stopLoops++
			if stopLoops == 2 {
				l.errs = appendErr(l.errs, lo.Line, "loop %s: at most one loop may use phase stop", lo.ID)
			}
		}
		if lo.Phase != "" && !slices.ContainsFunc(c.Constraints, func(k *Constraint) bool { return k.InPhase(lo.Phase) }) {
			l.errs = appendErr(l.errs, lo.Line, "loop %s: phase %s has no enabled constraint", lo.ID, lo.Phase)
		}
	}
}

func appendErr(errs []*ContractError, line int, format string, args ...any) []*ContractError {
	if len(errs) >= maxContractErrors {
		return errs
	}
	return append(errs, &ContractError{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// findCycle returns the first dependency cycle as a path that starts and
// ends at the same id, or nil. Constraints are visited in file order and
// needs in their listed order, so the reported cycle is deterministic.
func findCycle(cs []*Constraint, byID map[string]*Constraint) []string {
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(cs))
	var stack []string
	var visit func(id string) []string
	visit = func(id string) []string {
		color[id] = grey
		stack = append(stack, id)
		for _, n := range byID[id].Needs {
			if byID[n] == nil {
				continue
			}
			switch color[n] {
			case grey:
				i := slices.Index(stack, n)
				return append(slices.Clone(stack[i:]), n)
			case white:
				if cyc := visit(n); cyc != nil {
					return cyc
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return nil
	}
	for _, k := range cs {
		if color[k.ID] == white {
			if cyc := visit(k.ID); cyc != nil {
				return cyc
			}
		}
	}
	return nil
}

// Waves returns the constraints selected for phase (enabled, listing the
// phase) in dependency waves (SPEC §2 Execution): each wave is sorted by id
// and holds the constraints whose needs all lie in earlier waves.
func Waves(c *Contract, phase Phase) ([][]*Constraint, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil contract", ErrContract)
	}
	if _, err := ParsePhase(string(phase)); err != nil {
		return nil, err
	}
	pending := map[string]*Constraint{}
	for _, k := range c.Constraints {
		if k.InPhase(phase) {
			pending[k.ID] = k
		}
	}
	for _, k := range pending {
		for _, n := range k.Needs {
			if pending[n] == nil {
				// LoadContract refuses this; a hand-built contract may not.
				return nil, fmt.Errorf("%w: constraint %s needs %s, which is not enabled in phase %s", ErrContract, k.ID, n, phase)
			}
		}
	}
	var waves [][]*Constraint
	for len(pending) > 0 {
		var ready []*Constraint
		for _, k := range pending {
			if !slices.ContainsFunc(k.Needs, func(n string) bool { return pending[n] != nil }) {
				ready = append(ready, k)
			}
		}
		if len(ready) == 0 {
			return nil, fmt.Errorf("%w: needs form a cycle in phase %s", ErrContract, phase)
		}
		slices.SortFunc(ready, func(a, b *Constraint) int { return strings.Compare(a.ID, b.ID) })
		for _, k := range ready {
			delete(pending, k.ID)
		}
		waves = append(waves, ready)
	}
	return waves, nil
}

// Plan returns the constraints selected for phase in a topological order
// (the waves of Waves, concatenated): every constraint follows its needs.
func Plan(c *Contract, phase Phase) ([]*Constraint, error) {
	waves, err := Waves(c, phase)
	if err != nil {
		return nil, err
	}
	var out []*Constraint
	for _, w := range waves {
		out = append(out, w...)
	}
	return out, nil
}
