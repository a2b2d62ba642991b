package httpclient_test

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpserve"
)

// TestShallowFetchOfLargeRun fetches a run of 10,500 events with depth 10
// from tine serve into a blake3 repository: the run names every event, so
// the clone's shallow boundary is the 10,490 events beyond the depth, past
// the SPEC's 10,000 ids a sha256 repository keeps to; a blake3 one (which
// only tine reads) holds it, and a full fetch then fills it.
func TestShallowFetchOfLargeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("21,001 objects")
	}
	if raceDetector {
		t.Skip("21,001 objects take too long under the race detector; the run without it covers this test")
	}
	ctx := context.Background()
	hs, _ := startServerWith(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: objects.BLAKE3})
	local := newRepoOf(t, objects.BLAKE3)
	run := storeChain(t, local, 10500)
	tr := openRemote(t, hs.URL)
	set := closureOf(t, local, run)
	if _, err := tr.Push(ctx, remote.PushRequest{Source: local.Objects(), Set: set,
		Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}}); err != nil {
		t.Fatal(err)
	}
	clone := newRepoOf(t, objects.BLAKE3)
	sink, err := remote.NewRepoSink(clone)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: 10}, sink); err != nil {
		t.Fatalf("shallow fetch of a 10,500-event run: %v", err)
	}
	if err := sink.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	shallow, err := clone.Refs().ReadShallow()
	if err != nil {
		t.Fatal(err)
	}
	if len(shallow) != 10490 || len(shallow) <= refs.MaxShallowEntries {
		t.Fatalf("shallow boundary of %d ids, want the 10,490 events beyond the depth", len(shallow))
	}
	// A full fetch of the run fills the boundary.
	if _, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink); err != nil {
		t.Fatalf("full fetch after the shallow one: %v", err)
	}
	if err := sink.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := clone.Refs().ReadShallow()
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 0 {
		t.Fatalf("after deepening, %d shallow ids remain", len(after))
	}
}
