package agents_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tinehq/tine/porcelain/agents"
)

// toolNames lists a server's tools, sorted.
func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// TestToolsRegisteredWithHints checks which tools each mode registers, their
// readOnlyHint/destructiveHint, and that every string input is bounded in
// the published schema.
func TestToolsRegisteredWithHints(t *testing.T) {
	f := newFixture(t)
	all := append(append([]string{}, agents.ReadToolNames...), agents.WriteToolNames...)
	for _, tc := range []struct {
		name     string
		readOnly bool
		promote  bool
		want     []string
	}{
		{"default", false, false, all},
		{"read-only", true, false, agents.ReadToolNames},
		{"allow-promotion", false, true, append(append([]string{}, all...), "promote")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := f.options()
			opt.ReadOnly, opt.AllowPromotion = tc.readOnly, tc.promote
			tools := toolNames(t, connect(t, opt))
			if len(tools) != len(tc.want) {
				t.Fatalf("%d tools, want %d: %v", len(tools), len(tc.want), tools)
			}
			for _, name := range tc.want {
				tl := tools[name]
				if tl == nil {
					t.Fatalf("tool %s not registered", name)
				}
				a := tl.Annotations
				read := slices.Contains(agents.ReadToolNames, name)
				if a == nil || a.ReadOnlyHint != read {
					t.Errorf("%s: readOnlyHint %v, want %v", name, a != nil && a.ReadOnlyHint, read)
					continue
				}
				if a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("%s: openWorldHint %v, want false", name, a.OpenWorldHint)
				}
				if !read && (a.DestructiveHint == nil || *a.DestructiveHint != (name == "promote")) {
					t.Errorf("%s: destructiveHint %v, want %v", name, a.DestructiveHint, name == "promote")
				}
				checkSchemaBounded(t, name, tl.InputSchema)
			}
		})
	}
}

// checkSchemaBounded requires a closed object schema whose strings carry
// maxLength, integers maximum and arrays maxItems.
func checkSchemaBounded(t *testing.T, tool string, schema any) {
	t.Helper()
	s, ok := schema.(map[string]any)
	if !ok || s["type"] != "object" {
		t.Fatalf("%s: input schema %v is no object schema", tool, schema)
	}
	if s["additionalProperties"] != false {
		t.Errorf("%s: additionalProperties %v, want closed", tool, s["additionalProperties"])
	}
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		t.Fatalf("%s: no properties", tool)
	}
	for name, p := range props {
		p := p.(map[string]any)
		typ, _ := p["type"].(string)
		if types, ok := p["type"].([]any); ok { // ["null", "array"] for a Go slice
			for _, x := range types {
				if x != "null" {
					typ = x.(string)
				}
			}
		}
		bound := map[string]string{"string": "maxLength", "integer": "maximum", "array": "maxItems"}[typ]
		if bound != "" && p[bound] == nil {
			t.Errorf("%s.%s: %s without %s", tool, name, typ, bound)
		}
	}
}

// TestReadTools calls every read tool and checks what it returns against
// the fixture.
func TestReadTools(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	before := f.snapshot(t)

	refs := call(t, cs, "list_refs", map[string]any{"prefix": "experiments/"})
	names := []string{}
	for _, r := range refs["refs"].([]any) {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "experiments/explore") || !slices.Contains(names, "experiments/t1/best") || slices.Contains(names, "heads/main") {
		t.Errorf("list_refs experiments/: %v", names)
	}
	if got := call(t, cs, "list_refs", map[string]any{"limit": 1}); len(got["refs"].([]any)) != 1 || got["truncated"] != true {
		t.Errorf("list_refs limit 1: %v", got)
	}

	log := call(t, cs, "log", map[string]any{"rev": "heads/main"})
	entries := log["entries"].([]any)
	if len(entries) != 3 || entries[0].(map[string]any)["event"] != f.main[2] || entries[2].(map[string]any)["model"] != "m1" {
		t.Errorf("log heads/main: %v", entries)
	}
	if got := call(t, cs, "log", map[string]any{"rev": "heads/main", "limit": 1}); len(got["entries"].([]any)) != 1 {
		t.Errorf("log limit 1: %v", got["entries"])
	}

	blob := call(t, cs, "show", map[string]any{"rev": f.blob})
	if blob["type"] != "blob" || blob["text"] != "line one\nline two\nnaïve ünïcode tail\n" || blob["truncated"] != nil {
		t.Errorf("show blob: %v", blob)
	}
	// Cut inside "ï" (2 bytes at offset 20): the prefix stops before it.
	cut := call(t, cs, "show", map[string]any{"rev": f.blob, "max_bytes": 21})
	if cut["text"] != "line one\nline two\nna" || cut["truncated"] != true || cut["size"].(float64) != 40 {
		t.Errorf("show blob max_bytes 21: %v", cut)
	}
	ev := call(t, cs, "show", map[string]any{"rev": f.main[1], "lines": 1})
	previews := ev["blobs"].([]any)
	if ev["type"] != "event" || len(previews) != 1 || previews[0].(map[string]any)["more_lines"].(float64) != 2 {
		t.Errorf("show event: %v", ev)
	}
	run := call(t, cs, "show", map[string]any{"rev": "heads/main", "max_bytes": 10})
	if run["type"] != "run" || run["payload"] != nil || run["truncated"] != true || run["totals"].(map[string]any)["events"].(float64) != 3 {
		t.Errorf("show run with max_bytes 10: %v", run)
	}

	for _, tc := range []struct {
		depth int
		want  []string
	}{{0, f.main[2:]}, {1, []string{f.main[2], f.main[1]}}, {5, []string{f.main[2], f.main[1], f.main[0]}}} {
		c := call(t, cs, "context", map[string]any{"event": "heads/main", "depth": tc.depth})
		if tc.depth == 0 {
			c = call(t, cs, "context", map[string]any{"event": f.main[2], "depth": 0})
		}
		var got []string
		for i, e := range c["events"].([]any) {
			e := e.(map[string]any)
			got = append(got, e["oid"].(string))
			if e["depth"].(float64) != float64(i) || e["payload"] == nil {
				t.Errorf("context depth %d: event %d: %v", tc.depth, i, e)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("context depth %d: %v, want %v", tc.depth, got, tc.want)
		}
	}
	if c := call(t, cs, "context", map[string]any{"event": f.main[2], "depth": 5, "max_events": 2}); len(c["events"].([]any)) != 2 || c["truncated"] != true {
		t.Errorf("context max_events 2: %v", c)
	}

	d := call(t, cs, "diff", map[string]any{"a": "heads/main", "b": "experiments/explore"})
	if d["common_ancestor"] != f.main[0] || len(d["only_a"].([]any)) != 2 || len(d["only_b"].([]any)) != 1 || d["identical"] != false {
		t.Errorf("diff: %v", d)
	}

	loop := call(t, cs, "loop_show", map[string]any{"loop": "t1"})
	if loop["loop"] != "t1" || loop["total_steps"].(float64) != 6 || len(loop["steps"].([]any)) != 6 {
		t.Errorf("loop_show t1: %v", loop)
	}

	gs := call(t, cs, "gate_status", map[string]any{})
	cons := gs["constraints"].([]any)
	if len(cons) != 1 || cons[0].(map[string]any)["constraint_id"] != "tests" || cons[0].(map[string]any)["state"] != "missing" {
		t.Errorf("gate_status: %v", gs)
	}

	before.same(t, f.snapshot(t), "read tools")
}

// TestShowBinaryBlobPrefix: a binary blob comes back as base64 of a prefix.
func TestShowBinaryBlobPrefix(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	data := []byte{0, 1, 2, 3, 4, 5, 6, 7}
	rec := call(t, cs, "record_event", map[string]any{"ref": "experiments/bin",
		"event": `{"kind":"tool","output":{"b64":"` + base64.StdEncoding.EncodeToString(data) + `"}}`})
	ev := call(t, cs, "show", map[string]any{"rev": rec["event"]})
	bid := ev["blobs"].([]any)[0].(map[string]any)["oid"].(string)
	got := call(t, cs, "show", map[string]any{"rev": bid, "max_bytes": 3})
	if got["base64"] != base64.StdEncoding.EncodeToString(data[:3]) || got["truncated"] != true || got["text"] != nil {
		t.Errorf("show binary blob: %v", got)
	}
}

// TestShowCorruptObjectRefused: show re-hashes what it reads, so a damaged
// blob is an error naming it, never a prefix of bad bytes.
func TestShowCorruptObjectRefused(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.options())
	corruptLoose(t, f.root, f.blob)
	msg := callRefused(t, cs, "show", map[string]any{"rev": f.blob})
	if !strings.Contains(msg, f.blob) {
		t.Errorf("show corrupt blob: %q does not name %s", msg, f.blob)
	}
}
