package remotes

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

func TestObjectFormatMismatchRefusedBeforeTransfer(t *testing.T) {
	ctx := context.Background()
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	hub.SetRef("heads/main", hub.Run(hub.Chain("e", 2, objects.OID{})))
	local := remotetest.NewRepo(t, objects.SHA256)
	if _, err := Add(local.R, Remote{Name: "origin", URL: hub.R.Root()}); err != nil {
		t.Fatal(err)
	}
	_, err := Fetch(ctx, local.R, FetchOptions{Depth: remote.NoDepth})
	if !errors.Is(err, remote.ErrObjectFormat) {
		t.Fatalf("fetch across formats: %v", err)
	}
	_, err = Push(ctx, local.R, PushOptions{Refs: []string{"main"}})
	if err == nil {
		t.Fatal("push across formats succeeded")
	}
	n := 0
	local.R.Objects().List(ctx, func(objects.OID) error { n++; return nil })
	if n != 0 {
		t.Fatalf("a refused fetch stored %d objects", n)
	}
}

func TestAnnotationRefsFastForwardOnly(t *testing.T) {
	ctx := context.Background()
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	run := hub.Run(hub.Chain("e", 2, objects.OID{}))
	hub.SetRef("heads/main", run)
	n1 := hub.Annotate(run, objects.OID{}, "one")
	ann := "annotations/" + run.Hex()
	hub.SetRef(ann, n1)

	local, fetch := tracking(t, hub)
	fetch()
	if got, _ := local.R.Refs().Read(ctx, ann); got != n1 {
		t.Fatalf("annotation ref after the first fetch: %s", got)
	}
	// The hub's chain grows: a fast-forward.
	n2 := hub.Annotate(run, n1, "two")
	hub.SetRef(ann, n2)
	fetch()
	if got, _ := local.R.Refs().Read(ctx, ann); got != n2 {
		t.Fatalf("annotation ref after the hub's chain grew: %s", got)
	}
	// A local note the hub lacks: the hub's next note does not replace it.
	mine := local.Annotate(run, n2, "mine")
	local.SetRef(ann, mine)
	hub.SetRef(ann, hub.Annotate(run, n2, "theirs"))
	fetch()
	if got, _ := local.R.Refs().Read(ctx, ann); got != mine {
		t.Fatalf("a diverged annotation chain was overwritten: %s", got)
	}
}

func TestPushMovesTheRunsAnnotationRef(t *testing.T) {
	ctx := context.Background()
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	local := remotetest.NewRepo(t, objects.BLAKE3)
	run := local.Run(local.Chain("e", 2, objects.OID{}))
	local.SetRef("heads/main", run)
	ann := "annotations/" + run.Hex()
	n1 := local.Annotate(run, objects.OID{}, "owner=ml")
	local.SetRef(ann, n1)
	if _, err := Add(local.R, Remote{Name: "origin", URL: hub.R.Root()}); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, local.R, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := hub.R.Refs().Read(ctx, ann); got != n1 {
		t.Fatalf("the hub's annotation ref: %s, want %s", got, n1)
	}
	n2 := local.Annotate(run, n1, "owner=infra")
	local.SetRef(ann, n2)
	if _, err := Push(ctx, local.R, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := hub.R.Refs().Read(ctx, ann); got != n2 {
		t.Fatalf("the hub's annotation ref after a fast-forward: %s, want %s", got, n2)
	}
	// The hub's chain moves on; a local chain that lacks its note is not
	// pushed over it.
	hub.SetRef(ann, hub.Annotate(run, n2, "theirs"))
	local.SetRef(ann, local.Annotate(run, n2, "mine"))
	res, err := Push(ctx, local.R, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	skipped := false
	for _, mv := range res.Refs {
		skipped = skipped || (mv.Ref == ann && mv.Status == "skipped")
	}
	if !skipped {
		t.Fatalf("a diverged annotation chain was not reported as skipped: %+v", res.Refs)
	}
	if got, _ := hub.R.Refs().Read(ctx, ann); got == n2 {
		t.Fatal("the hub's annotation chain was moved back")
	}
}

// TestPushRefusesToDropTheRemotesEvents: after a fetch has moved the
// tracking ref to a run that continued elsewhere, a plain push of a local
// run that lacks its events is refused (not a fast-forward) and sends
// nothing; a push of a run that extends it moves; --expected-old is the
// explicit replace.
func TestPushRefusesToDropTheRemotesEvents(t *testing.T) {
	ctx := context.Background()
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	base := hub.Chain("e", 2, objects.OID{})
	hub.SetRef("heads/main", hub.Run(base))
	local, fetch := tracking(t, hub)
	fetch()
	// Someone else extends the hub's run; here the run goes another way.
	theirs := hub.Run(append(base, hub.Event("theirs", base[1])))
	hub.SetRef("heads/main", theirs)
	mineEvent := local.Event("mine", base[1])
	mine := local.Run(append(append([]objects.OID(nil), base...), mineEvent))
	local.SetRef("heads/main", mine)
	fetch()

	res, err := Push(ctx, local.R, PushOptions{})
	if !errors.Is(err, ErrPushRejected) || !strings.Contains(err.Error(), "not a fast-forward: the remote run has 1 event this one lacks, and it has 1 event the remote run lacks") ||
		!strings.Contains(err.Error(), "tine fork remotes/origin/main --from EVENT") {
		t.Fatalf("push of a run lacking the remote's event: %v", err)
	}
	if len(res.Refs) != 1 || res.Refs[0].Status != "refused" || res.Objects != 0 {
		t.Fatalf("receipt %+v, %d objects sent; want heads/main refused and nothing sent", res.Refs, res.Objects)
	}
	if got, _ := hub.R.Refs().Read(ctx, "heads/main"); got != theirs {
		t.Fatalf("the hub's run was replaced: %s", got)
	}
	if hub.Has(mineEvent) {
		t.Fatal("the refused run's event was sent")
	}

	// A run that extends the remote's moves.
	theirsEvent := mustEvent(t, hub, local, "theirs", base[1])
	ahead := local.Run([]objects.OID{base[0], base[1], theirsEvent, local.Event("next", theirsEvent)})
	local.SetRef("heads/main", ahead)
	if _, err := Push(ctx, local.R, PushOptions{}); err != nil {
		t.Fatalf("push of a run that extends the remote's: %v", err)
	}
	if got, _ := hub.R.Refs().Read(ctx, "heads/main"); got != ahead {
		t.Fatalf("the hub holds %s, want the extended run", got)
	}

	// --expected-old replaces it explicitly.
	local.SetRef("heads/main", mine)
	if _, err := Push(ctx, local.R, PushOptions{Refs: []string{"main"}, ExpectedOld: ahead.String()}); err != nil {
		t.Fatalf("push with --expected-old: %v", err)
	}
	if got, _ := hub.R.Refs().Read(ctx, "heads/main"); got != mine {
		t.Fatalf("the hub holds %s after the explicit replace", got)
	}
}

// mustEvent is the event oid the hub made for label after parent, made
// again in local (events are content-addressed, so the same fields give
// the same oid).
func mustEvent(t *testing.T, hub, local *remotetest.Repo, label string, parent objects.OID) objects.OID {
	t.Helper()
	id := local.Event(label, parent)
	if !hub.Has(id) {
		t.Fatalf("event %s made in the local repository is not the hub's", label)
	}
	return id
}

// tracking returns a new repository with hub as its remote origin, and
// a fetch of all of hub's refs into it that fails the test on error.
func tracking(t *testing.T, hub *remotetest.Repo) (*remotetest.Repo, func()) {
	t.Helper()
	local := remotetest.NewRepo(t, objects.BLAKE3)
	if _, err := Add(local.R, Remote{Name: "origin", URL: hub.R.Root()}); err != nil {
		t.Fatal(err)
	}
	return local, func() {
		t.Helper()
		if _, err := Fetch(context.Background(), local.R, FetchOptions{Depth: remote.NoDepth}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeepenAfterDepthZero: a fetch of depth 0 stores runs and no event;
// fetch --deepen N then brings the N newest generations from the tips,
// as the boundary line advises.
func TestDeepenAfterDepthZero(t *testing.T) {
	ctx := context.Background()
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	chain := hub.Chain("e", 3, objects.OID{})
	hub.SetRef("heads/main", hub.Run(chain))
	local, _ := tracking(t, hub)
	if _, err := Fetch(ctx, local.R, FetchOptions{Depth: 0}); err != nil {
		t.Fatal(err)
	}
	for _, e := range chain {
		if local.Has(e) {
			t.Fatalf("a fetch of depth 0 stored event %s", e)
		}
	}
	if _, err := Fetch(ctx, local.R, FetchOptions{Deepen: 1}); err != nil {
		t.Fatal(err)
	}
	if !local.Has(chain[2]) || local.Has(chain[1]) {
		t.Fatalf("--deepen 1 after depth 0: tip stored %v, its parent stored %v; want only the tip", local.Has(chain[2]), local.Has(chain[1]))
	}
	if _, err := Fetch(ctx, local.R, FetchOptions{Deepen: 2}); err != nil {
		t.Fatal(err)
	}
	for _, e := range chain {
		if !local.Has(e) {
			t.Fatalf("--deepen 2 more did not bring event %s", e)
		}
	}
	local.Fsck()
}
