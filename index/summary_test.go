package index

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// putJSON stores an object given as JSON text.
func (r *testRepo) putJSON(ty objects.Type, js string) objects.OID {
	r.t.Helper()
	v, err := objects.ParseJSON([]byte(js), objects.ParseOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	o, err := objects.NewJSONObject(r.algo, ty, 1, v)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.store.Put(r.ctx, o); err != nil {
		r.t.Fatal(err)
	}
	return o.ID
}

func TestRunSummaryFoldsEvents(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	e1 := r.putJSON(objects.TypeEvent, `{"kind":"loop","time_unix":100,"attributes":{"phase":"init","policy":{"max_steps":5,"width":2,"target":null}}}`)
	e2 := r.putJSON(objects.TypeEvent, fmt.Sprintf(`{"kind":"model","model":"m1","parent_ids":[%q],"time_unix":90,"cost":"0.5","duration":2,"usage":{"input":10,"output":5},"score":0.7,"attributes":{"params":{"lr":"0.1","seed":1,"bad":[1]}}}`, e1))
	e3 := r.putJSON(objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","tool":"shell","parent_ids":[%q],"time_unix":130,"cost":1,"duration":0.5,"usage":{"total":7},"attributes":{"argv":["make","test"],"exit_code":3,"params":{"lr":"0.01"}}}`, e2))
	run := r.run([]objects.OID{e1, e2, e3}, objects.Member{Key: "status", Value: str("completed")}, objects.Member{Key: "created_at", Value: objects.Int(42)})
	r.setRef("experiments/tune/a", run)
	c, _ := r.catalog()
	got, ok := c.RunSummary(run)
	if !ok {
		t.Fatal("no summary for a ref'd run")
	}
	want := RunSummary{Run: run, Status: "completed", CreatedAt: 42, HasCreatedAt: true, Events: 3, Cost: 1.5, Duration: 2.5, Tokens: 22,
		Started: 90, Ended: 130, HasTime: true,
		Params: []Param{{"loop.max_steps", "5"}, {"loop.width", "2"}, {"lr", "0.01"}, {"seed", "1"}}}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Fatalf("summary\n got %+v\nwant %+v", got, want)
	}
	evs := c.RunEvents(run)
	if len(evs) != 3 || evs[1].ID != e2 || evs[1].Label != "m1" || !evs[1].HasScore || evs[1].Score != 0.7 || evs[2].ExitCode != 3 || !evs[2].HasExit || evs[2].Label != "shell" || evs[2].Argv != "make test" {
		t.Fatalf("event summaries %+v", evs)
	}
	if got := c.Parents(e3); !slices.Equal(got, []objects.OID{e2}) {
		t.Fatalf("parents of e3: %v", got)
	}
	if got := c.Parents(e1); len(got) != 0 {
		t.Fatalf("parents of the root: %v", got)
	}
	if runs := c.RunsWithEvent(e2); !slices.Equal(runs, []objects.OID{run}) {
		t.Fatalf("runs with e2: %v", runs)
	}
}

func TestRunSummaryUpdatedIncrementally(t *testing.T) {
	keepLayers(t)
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	e4 := f.putJSON(objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","parent_ids":[%q],"cost":2,"attributes":{"params":{"lr":"0.5"}}}`, f.e2))
	main2 := f.run([]objects.OID{f.e1, f.e2, e4})
	f.setRef("heads/main", main2)
	c, rep := f.catalog()
	// The new run and the one new event: the summary of the events
	// already indexed is reused, not re-read.
	if rep.Action != ActionUpdated || rep.ObjectsRead != 2 {
		t.Fatalf("update: %+v", rep)
	}
	s, _ := c.RunSummary(main2)
	if s.Events != 3 || s.Cost != 2 || !slices.Equal(s.Params, []Param{{"lr", "0.5"}}) {
		t.Fatalf("summary after append: %+v", s)
	}
	if got := c.Parents(e4); !slices.Equal(got, []objects.OID{f.e2}) {
		t.Fatalf("parents of the appended event: %v", got)
	}
	if got := c.Parents(f.e2); !slices.Equal(got, []objects.OID{f.e1}) {
		t.Fatalf("parents of a reused event after the table merged: %v", got)
	}
	// The old run keeps its summary: tags/v1 still names it.
	if old, ok := c.RunSummary(f.main); !ok || old.Events != 2 {
		t.Fatalf("old run's summary: %+v, %v", old, ok)
	}
}

func TestDamagedRunSummariesAreRebuilt(t *testing.T) {
	cases := []struct {
		name   string
		damage func(d *data)
		reason string
	}{
		{"event position out of range", func(d *data) { d.runs[0].Events[0] = int32(len(d.events) + 5) }, "names event"},
		{"events out of order", func(d *data) {
			d.events[0], d.events[1] = d.events[1], d.events[0]
			d.events[0].parents, d.events[1].parents = nil, nil
		}, "events out of order"},
		{"an event its own parent", func(d *data) { d.events[1].parents = []int{1} }, "names parent 1 of"},
		{"bad flag", nil, "bad flag"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, objects.BLAKE3)
			want, _ := f.catalog()
			good := f.fileBytes()
			d, err := decode(good)
			if err != nil {
				t.Fatal(err)
			}
			var b []byte
			if tc.damage != nil {
				tc.damage(d)
				b = encode(d)
			} else {
				// The first event's missing flag, set to 7, resealed.
				b = bytes.Clone(good)
				i := bytes.Index(b, append([]byte{2}, d.events[0].ID.Digest[:]...))
				b[i+33] = 7
				b = reseal(b)
			}
			if err := os.WriteFile(f.ix.Path(), b, 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := f.ix.Status(f.ctx)
			if err != nil || st.State != StateCorrupt || !strings.Contains(st.Reason, tc.reason) {
				t.Fatalf("status %+v, %v; want corrupt with %q", st, err, tc.reason)
			}
			c, rep := f.catalog()
			if rep.Action != ActionRebuilt {
				t.Fatalf("load: %+v", rep)
			}
			s1, _ := c.RunSummary(f.forked)
			s2, _ := want.RunSummary(f.forked)
			if fmt.Sprint(s1) != fmt.Sprint(s2) || s1.Events != 3 {
				t.Fatalf("rebuilt summary %+v, want %+v", s1, s2)
			}
		})
	}
}

// TestLazyEventTablesAreSafeConcurrently: the event lookups are built on
// first use; concurrent first uses must agree (run with -race).
func TestLazyEventTablesAreSafeConcurrently(t *testing.T) {
	f := newFixture(t, objects.BLAKE3)
	c, _ := f.catalog()
	done := make(chan []objects.OID, 4)
	for range 4 {
		go func() {
			_, ok := c.Event(f.e3)
			runs := c.RunsWithEvent(f.e2)
			if !ok {
				runs = nil
			}
			done <- runs
		}()
	}
	for range 4 {
		if got := <-done; len(got) != 2 {
			t.Fatalf("runs with e2: %v", got)
		}
	}
}
