package runs

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// TestLogLimitReadsOnlyShownEvents: log -n 20 of a 5,000-event run reads
// the 20 events it prints, each once, and with the history index fresh no
// run object (without it, the run object once).
func TestLogLimitReadsOnlyShownEvents(t *testing.T) {
	r := lazyRepo(t)
	ids := writeChain(t, r, "heads/main", nil, 5000, "m", false)
	if rep, err := UpdateHistory(context.Background(), r); err != nil || rep.Added != 1 {
		t.Fatalf("UpdateHistory = %+v, %v", rep, err)
	}
	for _, indexed := range []bool{true, false} {
		for _, graph := range []bool{false, true} {
			setNoHistoryIndex(t, !indexed)
			c := newCounting(r.Objects())
			res, nodes, err := logRun(context.Background(), r, c, "heads/main", 20)
			if err != nil {
				t.Fatal(err)
			}
			if graph {
				RenderGraph(nodes)
			}
			if len(res.Entries) != 20 || res.Entries[0].Event != ids[4999].String() || res.Entries[19].Event != ids[4980].String() {
				t.Fatalf("entries: %d, first %s", len(res.Entries), res.Entries[0].Event)
			}
			if res.Runs[0].Events != 5000 {
				t.Errorf("run events = %d, want 5000", res.Runs[0].Events)
			}
			if ev, most := c.of(objects.TypeEvent); ev != 20 || most != 1 {
				t.Errorf("indexed %v: log -n 20 read %d events (one up to %d times), want 20 once each", indexed, ev, most)
			}
			want := 1
			if indexed {
				want = 0
			}
			if runs, _ := c.of(objects.TypeRun); runs != want {
				t.Errorf("indexed %v: log -n 20 read %d run objects, want %d", indexed, runs, want)
			}
		}
	}
}

// setNoHistoryIndex turns the history index off (or on) for one test.
func setNoHistoryIndex(t testing.TB, off bool) {
	old := noHistoryIndex
	noHistoryIndex = off
	t.Cleanup(func() { noHistoryIndex = old })
}

// TestDiffReadsSharedEventsOnce: two runs sharing 5,000 events and
// differing in 10 each. Without the history index every event is read at
// most once (the shared ones for both sides' totals and tool paths), not
// once per run; with it, only the 20 divergent events are read, and no
// run object. Indexing the three runs reads each event once.
func TestDiffReadsSharedEventsOnce(t *testing.T) {
	r := lazyRepo(t)
	shared := writeChain(t, r, "heads/base", nil, 5000, "s", false)
	a := writeChain(t, r, "heads/main", shared, 10, "a", false)
	b := writeChain(t, r, "experiments/b", shared, 10, "b", false)
	for _, indexed := range []bool{false, true} {
		setNoHistoryIndex(t, !indexed)
		if indexed {
			c := newCounting(r.Objects())
			h, err := openHistory(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []objects.OID{runOf(t, r, "heads/base"), runOf(t, r, "heads/main"), runOf(t, r, "experiments/b")} {
				if _, err := indexedRun(context.Background(), c, h, id); err != nil {
					t.Fatal(err)
				}
			}
			h.Close()
			if ev, most := c.of(objects.TypeEvent); ev != 5020 || most != 1 {
				t.Errorf("indexing read %d events (one up to %d times), want 5020 once each", ev, most)
			}
		}
		c := newCounting(r.Objects())
		res, err := diffRevisions(context.Background(), r, c, "heads/main", "experiments/b", DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Common) != 5000 || len(res.OnlyA) != 10 || len(res.OnlyB) != 10 || len(res.Aligned) != 10 {
			t.Fatalf("common %d, only a %d, only b %d, aligned %d", len(res.Common), len(res.OnlyA), len(res.OnlyB), len(res.Aligned))
		}
		if res.OnlyA[0].OID != a[5000].String() || res.OnlyB[9].OID != b[5009].String() || res.CommonAncestor != shared[4999].String() {
			t.Fatalf("only a %s, only b %s, ancestor %s", res.OnlyA[0].OID, res.OnlyB[9].OID, res.CommonAncestor)
		}
		if res.A.Totals.Cost != 5010*0.5 || len(res.B.ToolPath) != 5010 {
			t.Errorf("totals %+v, tool path %d", res.A.Totals, len(res.B.ToolPath))
		}
		want, runs := 5020, 2
		if indexed {
			want, runs = 20, 0
		}
		if ev, most := c.of(objects.TypeEvent); ev != want || most != 1 {
			t.Errorf("indexed %v: diff read %d events (one up to %d times), want %d once each", indexed, ev, most, want)
		}
		if n, _ := c.of(objects.TypeRun); n != runs {
			t.Errorf("indexed %v: diff read %d run objects, want %d", indexed, n, runs)
		}
	}
}

// runOf returns the run ref name points at.
func runOf(t testing.TB, r *plumbing.Repo, name string) objects.OID {
	t.Helper()
	id, err := r.Refs().Read(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLogAllReadsEachEventOnce: log --all over 20 runs sharing a 2,000-event
// history reads each event of the union once, and each run object once.
func TestLogAllReadsEachEventOnce(t *testing.T) {
	r := lazyRepo(t)
	base := writeChain(t, r, "heads/main", nil, 2000, "m", false)
	for k := range 19 {
		writeChain(t, r, fmt.Sprintf("experiments/f%02d", k), base[:2000-k*100], 2, fmt.Sprint("f", k), false)
	}
	c := newCounting(r.Objects())
	res, nodes, err := logAll(context.Background(), c, r.Refs(), 0)
	if err != nil {
		t.Fatal(err)
	}
	RenderGraph(nodes)
	if len(res.Runs) != 20 || len(res.Entries) != 2000+19*2 {
		t.Fatalf("runs %d, entries %d", len(res.Runs), len(res.Entries))
	}
	if ev, most := c.of(objects.TypeEvent); ev != 2038 || most != 1 {
		t.Errorf("log --all read %d events (one up to %d times), want 2038 once each", ev, most)
	}
	if runs, most := c.of(objects.TypeRun); runs != 20 || most != 1 {
		t.Errorf("log --all read %d run objects (one up to %d times), want 20 once each", runs, most)
	}
}
