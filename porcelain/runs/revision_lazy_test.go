package runs

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestAncestorReadsOnlyWalkedEvents: heads/main~10 of a 5,000-event run
// whose reflog holds the run as it was 10 events ago reads the 10 events
// of the first-parent walk, not the run's events: log -n 20 of it reads
// those and the 20 it prints. Without such a snapshot (~5) the run is
// derived from all its events, as before.
func TestAncestorReadsOnlyWalkedEvents(t *testing.T) {
	r := lazyRepo(t)
	ctx := context.Background()
	base := writeChain(t, r, "heads/main", nil, 4990, "m", false)
	ids := writeChain(t, r, "heads/main", base, 10, "n", false)

	c := newCounting(r.Objects())
	res, _, err := logRun(ctx, r, c, "heads/main~10", 20)
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs[0].Events != 4990 || res.Entries[0].Event != ids[4989].String() || len(res.Entries) != 20 {
		t.Fatalf("main~10: %d events, newest %s, want 4990 and %s", res.Runs[0].Events, res.Entries[0].Event, ids[4989])
	}
	if ev, _ := c.of(objects.TypeEvent); ev > 30 {
		t.Fatalf("log -n 20 heads/main~10 read %d events, want at most 10 walked + 20 shown", ev)
	}
	if n, most := c.of(objects.TypeRun); n != 2 || most != 1 {
		t.Fatalf("log -n 20 heads/main~10 read %d run objects (one up to %d times), want the run and its snapshot once each", n, most)
	}

	run, _, err := ResolveRun(ctx, r, "heads/main~5")
	if err != nil {
		t.Fatal(err)
	}
	if run.Stored || len(run.Events) != 4995 || run.Events[4994].ID != ids[4994] {
		t.Fatalf("main~5: stored %v, %d events", run.Stored, len(run.Events))
	}
	snap, _, err := ResolveRun(ctx, r, "heads/main~10")
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Stored || len(snap.Events) != 4990 || snap.Events[0].ID != ids[0] {
		t.Fatalf("main~10 loaded: stored %v, %d events", snap.Stored, len(snap.Events))
	}
}
