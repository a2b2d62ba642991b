package remote_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// movingGuard lets every update through, first moving ref name to to in
// the repository, as another writer might between a push's history check
// and its compare-and-swap.
type movingGuard struct {
	name   string
	to     objects.OID
	called int
}

func (g *movingGuard) CheckRef(ctx context.Context, repo *plumbing.Repo, u remote.RefUpdate) error {
	g.called++
	return repo.Refs().UpdateExpect(ctx, g.name, g.to, refs.ExpectAny, "another writer")
}

// TestFilePushStaleUpdateNotMovedUnchecked: a path push whose expected
// old value is not the ref's when the history check looks (so the check
// walks nothing) reports the conflict then, without a compare-and-swap:
// were the ref moved to that expected value meanwhile (here by the
// release policy's guard, which runs between the two), the swap would
// otherwise set it to a run whose history was never checked, here one
// whose event is not stored. Before, the ref moved.
func TestFilePushStaleUpdateNotMovedUnchecked(t *testing.T) {
	ctx := context.Background()
	local := remotetest.NewRepo(t, objects.SHA256)
	events := local.Chain("e", 3, objects.OID{})
	bad := local.Run(events)
	dst := remotetest.NewRepo(t, objects.SHA256)
	copyInto(t, local, dst, map[objects.OID]bool{events[1]: true}, bad)
	first := dst.Run(dst.Chain("first", 1, objects.OID{}))
	second := dst.Run(dst.Chain("second", 1, objects.OID{}))
	dst.SetRef("promotions/x", first)
	g := &movingGuard{name: "promotions/x", to: second}
	tr, err := remote.Open(ctx, dst.R.Root(), remote.Options{Guard: g})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Push(ctx, remote.PushRequest{Updates: []remote.RefUpdate{{Name: "promotions/x", Old: second, New: bad}}})
	if err != nil {
		t.Fatal(err)
	}
	var ce *remote.ConflictError
	if rr := res.Refs[0]; rr.Updated || !errors.As(rr.Err, &ce) || ce.Actual != first {
		t.Fatalf("stale promotions/x: %+v; want the conflict naming %s", rr, first)
	}
	cur, err := dst.R.Refs().Read(ctx, "promotions/x")
	if err != nil || cur == bad {
		t.Fatalf("promotions/x = %s, %v: moved to a run whose history is not stored", cur, err)
	}
}
