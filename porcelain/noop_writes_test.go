package porcelain_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain"
	"github.com/tinehq/tine/refs"
)

// plantDeadWriter leaves on ref what a tine writer SIGKILLed before its
// rename leaves (package refs, "Guards and liveness"): its read-only
// guard, flocked by nobody, and its staging file holding the value it
// meant to write.
func plantDeadWriter(t *testing.T, r *plumbing.Repo, ref string, meant objects.OID) {
	t.Helper()
	base := filepath.Join(r.Root(), "refs", filepath.FromSlash(ref))
	if err := os.WriteFile(base+".lock", []byte("0123456789abcdef0123456789abcdef"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+"..lock", refs.EncodeRefFile(meant), 0o644); err != nil {
		t.Fatal(err)
	}
}

// noLeftovers fails if any guard, staging file or journal is on disk.
func noLeftovers(t *testing.T, r *plumbing.Repo) {
	t.Helper()
	if gs, err := r.Refs().StaleGuards(context.Background()); err != nil || len(gs) != 0 {
		t.Fatalf("left behind: %+v, %v", gs, err)
	}
}

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
	if _, err := porcelain.Tag(ctx, r, porcelain.TagOptions{Name: "v1", Target: x}); err != nil {
		t.Fatal(err)
	}
	plantDeadWriter(t, r, "tags/v1", mustOID(t, y))
	res, err := porcelain.Tag(ctx, r, porcelain.TagOptions{Name: "v1", Target: x, Force: true})
	if err != nil || !res.NoDiff || res.OID != x {
		t.Fatalf("tag --force to the current target after a kill: %+v, %v", res, err)
	}
	noLeftovers(t, r)
	if id, err := r.Refs().Read("tags/v1"); err != nil || id.String() != x {
		t.Fatalf("tags/v1 = %s, %v; want %s", id, err, x)
	}
	if rr, err := r.Refs().ReadReflog("tags/v1"); err != nil || len(rr.Entries) != 1 {
		t.Fatalf("an unchanged tag wrote a reflog row: %+v, %v", rr, err)
	}
}

// TestAnnotateUnchangedRecoversKilledWriter: an annotate that changes
// nothing recovers a killed writer's guard and staging file, as
// TestTagUnchangedRecoversKilledWriter requires of tag.
func TestAnnotateUnchangedRecoversKilledWriter(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	run := appendEvent(t, r, "heads/x", `{"kind":"note","text":"x"}`, fakeClock(time.Unix(1757030400, 0), time.Second)).Run
	opt := porcelain.AnnotateOptions{Target: run, Set: []string{"k=v"}}
	first, err := porcelain.Annotate(ctx, r, opt)
	if err != nil {
		t.Fatal(err)
	}
	plantDeadWriter(t, r, first.Ref, mustOID(t, run))
	res, err := porcelain.Annotate(ctx, r, opt)
	if err != nil || !res.Unchanged || res.OID != first.OID {
		t.Fatalf("unchanged annotate after a kill: %+v, %v", res, err)
	}
	noLeftovers(t, r)
}

// TestReimportRecoversKilledWriter: importing an artifact already imported
// at its ref changes nothing and recovers a killed writer's guard and
// staging file.
func TestReimportRecoversKilledWriter(t *testing.T) {
	r := newRepo(t)
	src := fixture(t, "fix.tine")
	first := importArtifact(t, r, src, porcelain.ArtifactImportOptions{})
	plantDeadWriter(t, r, first.Ref, mustOID(t, first.Run))
	if res := importArtifact(t, r, src, porcelain.ArtifactImportOptions{}); res.Created || res.Run != first.Run {
		t.Fatalf("re-import after a kill: %+v", res)
	}
	noLeftovers(t, r)
}
