package agents_test

import (
	"slices"
	"strings"
	"testing"
)

// rowRefs lists the rows' refs of a runs result.
func rowRefs(res map[string]any) []string {
	var out []string
	for _, r := range res["rows"].([]any) {
		out = append(out, r.(map[string]any)["ref"].(string))
	}
	return out
}

// TestRunsAndSearchTools calls the two porcelain/compare tools: the runs
// table with a filter, a sort and a limit, and search, whose hits are the
// fixture's events; neither changes a ref or writes an object.
func TestRunsAndSearchTools(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	before := f.snapshot(t)

	all := rowRefs(call(t, cs, "runs", map[string]any{}))
	if !slices.Contains(all, "heads/main") || !slices.Contains(all, "experiments/explore") {
		t.Errorf("runs: rows %v", all)
	}
	exp := call(t, cs, "runs", map[string]any{"filters": []string{"ref~experiments/*"}, "sort_by": "events", "desc": true})
	refs := rowRefs(exp)
	if len(refs) != len(all)-1 || slices.Contains(refs, "heads/main") {
		t.Errorf("runs filtered to experiments/*: %v of %v", refs, all)
	}
	col := slices.IndexFunc(exp["columns"].([]any), func(c any) bool { return c.(map[string]any)["name"] == "events" })
	var events []float64
	for _, r := range exp["rows"].([]any) {
		events = append(events, r.(map[string]any)["cells"].([]any)[col].(map[string]any)["value"].(float64))
	}
	if col < 0 || !slices.IsSortedFunc(events, func(a, b float64) int { return int(b - a) }) {
		t.Errorf("runs sorted by events, descending: %v", events)
	}
	if one := call(t, cs, "runs", map[string]any{"limit": 1}); len(one["rows"].([]any)) != 1 || one["truncated"] != true {
		t.Errorf("runs limit 1: %v", one)
	}
	if msg := callRefused(t, cs, "runs", map[string]any{"filters": []string{"accuracy>>1"}}); !strings.Contains(msg, "accuracy") {
		t.Errorf("runs with a bad filter: %q", msg)
	}

	hits := call(t, cs, "search", map[string]any{"query": "another way"})["hits"].([]any)
	if len(hits) != 1 || !slices.Contains(toStrings(hits[0].(map[string]any)["refs"]), "experiments/explore") {
		t.Errorf("search another way: %v", hits)
	}
	hits = call(t, cs, "search", map[string]any{"query": "line", "in": "output", "kind": "tool"})["hits"].([]any)
	if len(hits) != 1 || hits[0].(map[string]any)["event"] != f.main[1] {
		t.Errorf("search line in output: %v", hits)
	}
	if msg := callRefused(t, cs, "search", map[string]any{"query": "x", "in": "everywhere"}); !strings.Contains(msg, "enum") {
		t.Errorf("search in everywhere: %q", msg)
	}
	after := f.snapshot(t)
	before.same(t, after, "runs and search")
}

// toStrings converts a JSON array of strings.
func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
