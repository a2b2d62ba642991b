package conformance

import (
	"sort"

	"github.com/tinehq/tine/objects"
)

// normalize sorts the top-level array fields named unordered (MANIFEST
// ops.<op>.unordered), as the runner does before comparing. Strings sort by
// their bytes, which for the suite's oid strings is the reference's
// sorted(key=repr) order; any non-string elements keep their order after
// the strings. The input is not modified.
func normalize(v objects.Value, unordered []string) objects.Value {
	if v.Kind != objects.KindObject || len(unordered) == 0 {
		return v
	}
	members := make([]objects.Member, len(v.Object))
	copy(members, v.Object)
	for i, m := range members {
		if m.Value.Kind != objects.KindArray || !contains(unordered, m.Key) {
			continue
		}
		elems := make([]objects.Value, len(m.Value.Array))
		copy(elems, m.Value.Array)
		sort.SliceStable(elems, func(x, y int) bool {
			a, b := elems[x], elems[y]
			if a.Kind != objects.KindString || b.Kind != objects.KindString {
				return a.Kind == objects.KindString && b.Kind != objects.KindString
			}
			return a.Str < b.Str
		})
		members[i].Value = objects.Array(elems...)
	}
	return objectValue(members)
}

// subsetMatches reports whether an accepted answer to a reject case gives
// the repair away: every field of forbidden is present with that value
// (and forbidden names at least one field). Non-object answers compare
// whole.
func subsetMatches(actual, forbidden objects.Value, unordered []string) bool {
	if actual.Kind != objects.KindObject || forbidden.Kind != objects.KindObject {
		return objects.Equal(actual, forbidden)
	}
	left, right := normalize(actual, unordered), normalize(forbidden, unordered)
	if len(right.Object) == 0 {
		return false
	}
	for _, m := range right.Object {
		got, ok := left.Get(m.Key)
		if !ok || !objects.Equal(got, m.Value) {
			return false
		}
	}
	return true
}

// aliasClosure returns the codes accepted for a case's expectation: the
// listed codes plus every member of any alias group that holds one of them.
func aliasClosure(codes []string, groups [][]string) map[string]bool {
	allowed := map[string]bool{}
	for _, c := range codes {
		allowed[c] = true
	}
	for _, g := range groups {
		hit := false
		for _, c := range g {
			if allowed[c] {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		for _, c := range g {
			allowed[c] = true
		}
	}
	return allowed
}

// expectedReasons returns a case's reason_any, or its reason, or nothing.
func expectedReasons(c Case) []string {
	if len(c.ReasonAny) > 0 {
		return c.ReasonAny
	}
	if c.Reason != "" {
		return []string{c.Reason}
	}
	return nil
}

// reasonOK reports whether actual agrees with the case at Level 2. A case
// without an expected reason agrees with anything.
func reasonOK(actual string, c Case, groups [][]string) bool {
	want := expectedReasons(c)
	if len(want) == 0 {
		return true
	}
	return aliasClosure(want, groups)[actual]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortStrings(s []string) { sort.Strings(s) }
