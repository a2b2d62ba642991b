package runs_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// TestTagUnchangedRecoversKilledWriter: `tine tag --force v1 X` with v1
// already at X changes nothing, yet like any writer of the tag it recovers
// a killed writer's guard and staging file instead of leaving them for
// fsck to report. TestRefWritersSIGKILLed (cmd/tine) found this leftover.
func TestTagUnchangedRecoversKilledWriter(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := fakeClock(time.Unix(1757030400, 0), time.Second)
	x := appendEvent(t, r, "heads/x", `{"kind":"note","text":"x"}`, now).Run
	y := appendEvent(t, r, "heads/y", `{"kind":"note","text":"y"}`, now).Run
	if _, err := runs.Tag(ctx, r, runs.TagOptions{Name: "v1", Target: x}); err != nil {
		t.Fatal(err)
	}
	runstest.PlantDeadWriter(t, r, "tags/v1", mustOID(t, y))
	res, err := runs.Tag(ctx, r, runs.TagOptions{Name: "v1", Target: x, Force: true})
	if err != nil || !res.NoDiff || res.OID != x {
		t.Fatalf("tag --force to the current target after a kill: %+v, %v", res, err)
	}
	runstest.NoLeftovers(t, r)
	if id, err := r.Refs().Read(ctx, "tags/v1"); err != nil || id.String() != x {
		t.Fatalf("tags/v1 = %s, %v; want %s", id, err, x)
	}
	if rr, err := r.Refs().ReadReflog("tags/v1"); err != nil || len(rr.Entries) != 1 {
		t.Fatalf("an unchanged tag wrote a reflog row: %+v, %v", rr, err)
	}
}
