package runs

import (
	"context"
	"reflect"
	"testing"
)

// TestShowRunHoldsNoEvents: tine show of a stored run reads its events
// one at a time into the totals and the entries, as ShowRun over the
// loaded run gives them, and does not keep them decoded (a long run's
// events held whole were most of show's memory).
func TestShowRunHoldsNoEvents(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	writeChain(t, r, "heads/main", nil, 300, "m", false)
	got, err := Show(ctx, r, ShowOptions{Rev: "heads/main"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := r.Resolve(ctx, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	run, err := LoadRun(ctx, r.Objects(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := ShowRun(run, "heads/main")
	if !reflect.DeepEqual(got.Totals, want.Totals) || !reflect.DeepEqual(got.Entries, want.Entries) ||
		string(got.Payload) != string(want.Payload) || got.OID != want.OID || got.Size != want.Size {
		t.Fatalf("show differs from ShowRun of the loaded run: totals %+v, want %+v", got.Totals, want.Totals)
	}
	if got.Totals.Events != 300 || got.Totals.Cost != 150 || len(got.Entries) != 300 {
		t.Fatalf("totals %+v, %d entries", got.Totals, len(got.Entries))
	}
	if len(got.Run.Events) != 0 {
		t.Fatalf("show kept %d decoded events", len(got.Run.Events))
	}
}

// TestShowBriefReadsNoEvents: show --json of a stored run takes its
// totals from the history index, the same as summed from the events, and
// once the index holds the run reads no event: with one event's file
// damaged it still answers, where reading the events fails on it.
func TestShowBriefReadsNoEvents(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	ids := writeChain(t, r, "heads/main", nil, 300, "m", true)
	full, err := Show(ctx, r, ShowOptions{Rev: "heads/main"})
	if err != nil {
		t.Fatal(err)
	}
	brief, err := Show(ctx, r, ShowOptions{Rev: "heads/main", Brief: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(brief.Totals, full.Totals) || string(brief.Payload) != string(full.Payload) || brief.Entries != nil {
		t.Fatalf("brief show: totals %+v, want %+v; %d entries", brief.Totals, full.Totals, len(brief.Entries))
	}
	corruptLoose(t, r, ids[150])
	if _, err := Show(ctx, r, ShowOptions{Rev: "heads/main"}); err == nil {
		t.Fatal("show read past a damaged event")
	}
	again, err := Show(ctx, r, ShowOptions{Rev: "heads/main", Brief: true})
	if err != nil || !reflect.DeepEqual(again.Totals, full.Totals) {
		t.Fatalf("brief show read the events: %v", err)
	}
}
