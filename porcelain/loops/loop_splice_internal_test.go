package loops

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// TestLoopSplicedRunsMatchFullEncoding: the recorder builds each branch's
// run by splicing into its last run's bytes (spliceRun); recording the
// same loops with the full encoder only must give the same refs, so every
// run object is the same, byte for byte. The loops cover a fork at every
// step, a checkpoint per iteration (a splice per run), a code manifest,
// and a loop continuing a run (its events first in every branch).
func TestLoopSplicedRunsMatchFullEncoding(t *testing.T) {
	code := t.TempDir()
	if err := os.WriteFile(filepath.Join(code, "step.txt"), []byte("state of the code\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	record := func(splice bool) (map[string]objects.OID, int) {
		t.Helper()
		spliceRuns = splice
		defer func() { spliceRuns = true }()
		ctx := context.Background()
		r, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		clock := runstest.FakeClock(time.Unix(1_700_000_000, 0), time.Millisecond)
		if _, err := runs.Import(ctx, r, runs.ImportOptions{Ref: "heads/base", Now: clock,
			Input: strings.NewReader(`{"kind":"note","text":"before the loop"}` + "\n" + `{"kind":"note","text":"still before"}` + "\n")}); err != nil {
			t.Fatal(err)
		}
		target := 1e6
		for _, opt := range []LoopRunOptions{
			{Name: "fork", Strategy: LoopStrategyNumeric, Target: &target, Width: 2, MaxSteps: 120, Dir: code},
			{Name: "every", Strategy: LoopStrategyNumeric, Target: &target, Width: 2, MaxSteps: 40, CheckpointEvery: 1, NoCapture: true},
			{Name: "cont", Base: "heads/base", Strategy: LoopStrategyNumeric, Target: &target, Width: 2, MaxSteps: 30, Dir: code},
		} {
			opt.Now = clock
			if _, err := LoopRun(ctx, r, opt); err != nil {
				t.Fatal(err)
			}
		}
		got := map[string]objects.OID{}
		if err := r.Refs().List(ctx, "experiments/", func(n string, id objects.OID) error {
			got[n] = id
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		res, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
		if err != nil || !res.OK() {
			t.Fatalf("fsck: %v %+v", err, res)
		}
		return got, res.Objects
	}
	spliced, n1 := record(true)
	full, n2 := record(false)
	if len(spliced) < 150 || !maps.Equal(spliced, full) || n1 != n2 {
		t.Fatalf("spliced loops: %d refs, %d objects; full encoding: %d refs, %d objects; or the refs differ", len(spliced), n1, len(full), n2)
	}
}
