package runs

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
)

// runFixture builds events and runs in a memory store for the diff and
// replay tests, tracking parents so runs get correct roots and tips.
type runFixture struct {
	t       *testing.T
	ctx     context.Context
	st      *memory.Store
	parents map[objects.OID][]objects.OID
}

func newRunFixture(t *testing.T) *runFixture {
	return &runFixture{t: t, ctx: context.Background(), st: memory.New(objects.BLAKE3), parents: map[objects.OID][]objects.OID{}}
}

// blob stores text as a blob.
func (f *runFixture) blob(text string) objects.OID {
	f.t.Helper()
	o := objects.NewBlob(f.st.Algo(), []byte(text))
	if err := f.st.Put(f.ctx, o); err != nil {
		f.t.Fatal(err)
	}
	return o.ID
}

// put stores a json object built from fields.
func (f *runFixture) put(typ objects.Type, fields map[string]any) objects.OID {
	f.t.Helper()
	raw, err := json.Marshal(fields)
	if err != nil {
		f.t.Fatal(err)
	}
	v, err := objects.ParseJSON(raw, objects.ParseOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	o, err := objects.NewJSONObject(f.st.Algo(), typ, 1, v)
	if err != nil {
		f.t.Fatalf("%s %s: %v", typ, raw, err)
	}
	if err := f.st.Put(f.ctx, o); err != nil {
		f.t.Fatal(err)
	}
	return o.ID
}

// event stores an event with the given parents and extra fields.
func (f *runFixture) event(parents []objects.OID, fields map[string]any) objects.OID {
	f.t.Helper()
	ps := make([]string, len(parents))
	for i, p := range parents {
		ps[i] = p.String()
	}
	fields["parent_ids"] = ps
	id := f.put(objects.TypeEvent, fields)
	f.parents[id] = parents
	return id
}

// command stores a recorded shell command event after parent.
func (f *runFixture) command(parent objects.OID, script string, exit int, stdout string) objects.OID {
	f.t.Helper()
	var ps []objects.OID
	if !parent.IsZero() {
		ps = []objects.OID{parent}
	}
	return f.event(ps, map[string]any{
		"kind": "tool", "tool": "shell", "duration": 0.5,
		"output_blob": f.blob(stdout).String(),
		"attributes":  map[string]any{"argv": []string{"sh", "-c", script}, "cwd": "/work", "exit_code": exit},
	})
}

// run stores a run of events (in order) with extra fields, and loads it.
func (f *runFixture) run(events []objects.OID, extra map[string]any) *Run {
	f.t.Helper()
	isParent := map[objects.OID]bool{}
	for _, e := range events {
		for _, p := range f.parents[e] {
			isParent[p] = true
		}
	}
	var evs, roots, tips []string
	evs, roots, tips = []string{}, []string{}, []string{}
	for _, e := range events {
		evs = append(evs, e.String())
		if len(f.parents[e]) == 0 {
			roots = append(roots, e.String())
		}
		if !isParent[e] {
			tips = append(tips, e.String())
		}
	}
	fields := map[string]any{"events": evs, "roots": roots, "tips": tips}
	for k, v := range extra {
		fields[k] = v
	}
	id := f.put(objects.TypeRun, fields)
	r, err := LoadRun(f.ctx, f.st, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}
