package remotes

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// TestHaveRootsOnlyForHeldClosures: a fetch names its tracking refs'
// values (and the associations held of their runs) as closure roots only
// when the repository holds each one's whole closure; with a shallow
// boundary it names none, and with an object of the closure missing (a
// damaged store, or a tracking ref set by hand) it refuses rather than
// tell the server to leave out what is not here.
func TestHaveRootsOnlyForHeldClosures(t *testing.T) {
	ctx := context.Background()
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	events := hub.Chain("e", 3, objects.OID{})
	run := hub.Run(events)
	hub.SetRef("heads/main", run)
	eval := hub.Evaluate(run, 0.5)
	local := remotetest.NewRepo(t, objects.BLAKE3)
	if _, err := Add(local.R, Remote{Name: "origin", URL: hub.R.Root()}); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(ctx, local.R, FetchOptions{Depth: remote.NoDepth}); err != nil {
		t.Fatal(err)
	}
	if !local.Has(eval) {
		t.Fatal("the fetch did not bring the evaluation")
	}
	ids, roots, err := haves(ctx, local.R, "origin")
	if err != nil || len(ids) == 0 || !slices.Contains(roots, run) || !slices.Contains(roots, eval) {
		t.Fatalf("complete clone: %d haves, roots %v, %v; want the run and its evaluation as roots", len(ids), roots, err)
	}

	// A shallow boundary: the closures stop there, so none is claimed.
	err = local.R.Refs().UpdateShallow(ctx, func(cur []objects.OID) ([]objects.OID, error) {
		return append(slices.Clone(cur), local.Blob("elsewhere")), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, roots, err := haves(ctx, local.R, "origin"); err != nil || roots != nil {
		t.Fatalf("shallow clone: roots %v, %v; want none", roots, err)
	}
	if err := local.R.Refs().UpdateShallow(ctx, func([]objects.OID) ([]objects.OID, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}

	// The oldest event lost: the tracking ref's closure is not held.
	rel, err := objects.LoosePath(events[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(local.R.Root(), rel)); err != nil {
		t.Fatal(err)
	}
	if _, roots, err := haves(ctx, local.R, "origin"); err == nil {
		t.Fatalf("a closure missing an event: roots %v, no error; want a refusal", roots)
	}
}
