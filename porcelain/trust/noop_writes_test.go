package trust_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/trust"
)

// TestAnnotateUnchangedRecoversKilledWriter: an annotate that changes
// nothing recovers a killed writer's guard and staging file, as
// TestTagUnchangedRecoversKilledWriter requires of tag.
func TestAnnotateUnchangedRecoversKilledWriter(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	run := appendEvent(t, r, "heads/x", `{"kind":"note","text":"x"}`, runstest.FakeClock(time.Unix(1757030400, 0), time.Second)).Run
	opt := trust.AnnotateOptions{Target: run, Set: []string{"k=v"}}
	first, err := trust.Annotate(ctx, r, opt)
	if err != nil {
		t.Fatal(err)
	}
	runstest.PlantDeadWriter(t, r, first.Ref, mustOID(t, run))
	res, err := trust.Annotate(ctx, r, opt)
	if err != nil || !res.Unchanged || res.OID != first.OID {
		t.Fatalf("unchanged annotate after a kill: %+v, %v", res, err)
	}
	runstest.NoLeftovers(t, r)
}

// TestReimportRecoversKilledWriter: importing an artifact already imported
// at its ref changes nothing and recovers a killed writer's guard and
// staging file.
func TestReimportRecoversKilledWriter(t *testing.T) {
	r := newRepo(t)
	src := fixture(t, "fix.tine")
	first := importArtifact(t, r, src, trust.ArtifactImportOptions{})
	runstest.PlantDeadWriter(t, r, first.Ref, mustOID(t, first.Run))
	if res := importArtifact(t, r, src, trust.ArtifactImportOptions{}); res.Created || res.Run != first.Run {
		t.Fatalf("re-import after a kill: %+v", res)
	}
	runstest.NoLeftovers(t, r)
}
