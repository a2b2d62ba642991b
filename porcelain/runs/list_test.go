package runs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// TestListRunsUnderPrefix checks the one "runs under a prefix" listing:
// only refs under the prefix, only refs naming runs (a ref naming an event
// is skipped), in ref order, with payloads whose events LoadEvents reads
// once through a shared cache.
func TestListRunsUnderPrefix(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := fakeClock(time.Unix(1700000000, 0), time.Second)
	a := appendEvent(t, r, "experiments/x/a", `{"kind":"note","time_unix":1}`, now)
	appendEvent(t, r, "experiments/x/b", `{"kind":"note","time_unix":2}`, now)
	appendEvent(t, r, "heads/main", `{"kind":"note","time_unix":3}`, now)
	if _, err := runs.Tag(ctx, r, runs.TagOptions{Name: "ev", Target: a.Event}); err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Tag(ctx, r, runs.TagOptions{Name: "run", Target: a.Run}); err != nil {
		t.Fatal(err)
	}
	var tags []string
	if err := runs.ListRuns(ctx, r.Refs(), r.Objects(), "tags/", func(ref string, _ *runs.Run) error {
		tags = append(tags, ref)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(tags, ",") != "tags/run" {
		t.Fatalf("tags listed %q, want only tags/run (tags/ev names an event)", tags)
	}
	var got []string
	cache := map[objects.OID]*runs.Event{}
	err := runs.ListRuns(ctx, r.Refs(), r.Objects(), "experiments/x/", func(ref string, run *runs.Run) error {
		if run.Events != nil {
			t.Errorf("%s: events loaded by the listing", ref)
		}
		if err := runs.LoadEvents(ctx, r.Objects(), run, cache); err != nil {
			return err
		}
		got = append(got, ref+":"+run.Events[0].ID.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "experiments/x/a:") || !strings.HasPrefix(got[1], "experiments/x/b:") {
		t.Fatalf("listed %q, want the two runs under experiments/x/", got)
	}
	if len(cache) != 2 {
		t.Fatalf("cache holds %d events, want 2", len(cache))
	}
	stop := errors.New("stop")
	if err := runs.ListRuns(ctx, r.Refs(), r.Objects(), "", func(string, *runs.Run) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("fn's error: got %v", err)
	}
}
