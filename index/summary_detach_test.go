package index

import (
	"testing"
	"unsafe"

	"github.com/tinehq/tine/objects"
)

// parsed returns the object of a JSON payload, parsed as a store's read
// parses it (one string of the whole body, every value sliced from it).
func parsed(t *testing.T, ty objects.Type, js string) *objects.Object {
	t.Helper()
	v, err := objects.ParseJSON([]byte(js), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.NewJSONObject(objects.BLAKE3, ty, 1, v)
	if err != nil {
		t.Fatal(err)
	}
	o, err = objects.DecodeEnvelope(objects.BLAKE3, append(append(objects.AppendHeader(nil, ty, 1), '\n'), o.Body...))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// sameString reports whether a and b share their bytes in memory.
func sameString(a, b string) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.StringData(a) == unsafe.StringData(b)
}

// TestSummariesDetachFromBodies: the strings a summary keeps are copies,
// not slices of the parsed body, so a catalog build over a 1,000-branch
// loop does not keep every body it read alive (it peaked at 204 MiB).
func TestSummariesDetachFromBodies(t *testing.T) {
	ev := parsed(t, objects.TypeEvent, `{"kind":"tool","tool":"pytest","model":"m1","error":"boom","attributes":{"argv":["pytest","-q"],"params":{"lr":"0.1"}}}`)
	s := summarizeEvent(ev)
	kind, _ := ev.Value.Get("kind")
	tool, _ := ev.Value.Get("tool")
	for name, pair := range map[string][2]string{
		"kind": {s.Kind, kind.Str}, "label": {s.Label, "m1"}, "tool": {s.Tool, tool.Str},
	} {
		if pair[0] != pair[1] && name != "label" {
			t.Fatalf("%s = %q, want %q", name, pair[0], pair[1])
		}
		if sameString(pair[0], pair[1]) {
			t.Errorf("summary %s shares the parsed body's bytes", name)
		}
	}
	mdl, _ := ev.Value.Get("model")
	if sameString(s.Label, mdl.Str) || sameString(s.Model, mdl.Str) {
		t.Error("summary label or model shares the parsed body's bytes")
	}
	run := parsed(t, objects.TypeRun, `{"events":[],"status":"completed"}`)
	st, _ := run.Value.Get("status")
	status, _, _ := runStatus(&runView{id: run.ID, members: run.Value, wholeList: true})
	if status != "completed" || sameString(status, st.Str) {
		t.Errorf("run status %q shares the parsed body's bytes (%v)", status, sameString(status, st.Str))
	}
}
