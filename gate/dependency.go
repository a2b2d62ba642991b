package gate

import (
	"slices"
)

// DependencyResult decides whether c may run given the results of its
// needs (SPEC §2 Execution). It returns nil when every need passed or was
// waived. Otherwise it returns the evidence c gets without running, with
// BlockedBy naming the needs that did not: pending when any need is
// pending; else fail when every blocking need failed; else error (a need
// missing, errored or uncertain — fail closed). The category is
// environment when any blocking need's is.
func DependencyResult(c *Constraint, results map[string]*Evidence, inputDigest string) *Evidence {
	var blocked []string
	pending, allFail, env := false, true, false
	for _, n := range c.Needs {
		r := results[n]
		if r != nil && (r.Verdict == Pass || r.Verdict == Waived) {
			continue
		}
		blocked = append(blocked, n)
		switch {
		case r == nil:
			allFail = false
		case r.Verdict == Pending:
			pending = true
		case r.Verdict != Fail:
			allFail = false
		}
		if r != nil && r.Category == CategoryEnvironment {
			env = true
		}
	}
	if len(blocked) == 0 {
		return nil
	}
	slices.Sort(blocked)
	ev := &Evidence{ConstraintID: c.ID, Kind: c.Kind, Enforcement: c.Enforcement, InputDigest: inputDigest, BlockedBy: blocked}
	cat := CategoryConstraint
	if env {
		cat = CategoryEnvironment
	}
	switch {
	case pending:
		setResult(ev, Pending, "", "Dependencies are pending")
	case allFail:
		setResult(ev, Fail, cat, "Dependencies failed")
	default:
		setResult(ev, Error, cat, "Dependencies could not be evaluated")
	}
	return ev
}

// RootCauses follows BlockedBy from each blocking result down to the
// results that blocked on their own (SPEC §2 blocking_causes): the
// constraints to repair. Roots may be advisory (an advisory prerequisite
// that fails still blocks its required dependents). A need with no result
// is its own root. The ids are sorted and unique.
func RootCauses(results []*Evidence) []string {
	byID := make(map[string]*Evidence, len(results))
	for _, r := range results {
		if r != nil {
			byID[r.ConstraintID] = r
		}
	}
	roots := map[string]bool{}
	seen := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		r := byID[id]
		if r == nil || len(r.BlockedBy) == 0 {
			roots[id] = true
			return
		}
		for _, b := range r.BlockedBy {
			walk(b)
		}
	}
	for _, r := range results {
		if r != nil && r.Blocks() {
			walk(r.ConstraintID)
		}
	}
	out := make([]string, 0, len(roots))
	for id := range roots {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
