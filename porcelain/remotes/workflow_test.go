package remotes

import (
	"context"
	"errors"
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

	local := remotetest.NewRepo(t, objects.BLAKE3)
	if _, err := Add(local.R, Remote{Name: "origin", URL: hub.R.Root()}); err != nil {
		t.Fatal(err)
	}
	fetch := func() {
		t.Helper()
		if _, err := Fetch(ctx, local.R, FetchOptions{Depth: remote.NoDepth}); err != nil {
			t.Fatal(err)
		}
	}
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
