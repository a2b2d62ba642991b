package remote_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// TestFilePushRefusesMissingHistory: a path remote that stores a run but
// not one of its events (another tool wrote it, or a disk lost the file)
// gets no ref to it from a push, which sends nothing since the remote has
// the run. The refusal names the ref (as the result's error and in the
// push's report), the run and the missing event and says how to restore
// it. An update the ref cannot take (a stale expected value) is the
// compare-and-swap's conflict, without the walk. Before, the ref moved.
func TestFilePushRefusesMissingHistory(t *testing.T) {
	ctx := context.Background()
	local := remotetest.NewRepo(t, objects.SHA256)
	events := local.Chain("e", 3, objects.OID{})
	run := local.Run(events)
	dst := remotetest.NewRepo(t, objects.SHA256)
	copyInto(t, local, dst, map[objects.OID]bool{events[1]: true}, run)
	base := dst.Run(dst.Chain("base", 1, objects.OID{}))
	dst.SetRef("heads/main", base)
	dir := dst.R.Root()
	tr, err := remote.Open(ctx, dir, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Push(ctx, remote.PushRequest{Updates: []remote.RefUpdate{
		{Name: "experiments/x", New: run},
		{Name: "heads/main", Old: run, New: run},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rr := res.Refs[0]
	if rr.Updated || !errors.Is(rr.Err, remote.ErrMissingHistory) || !errors.Is(rr.Err, remote.ErrNotFound) {
		t.Fatalf("experiments/x: %+v; want refused for missing history", rr)
	}
	var m *remote.MissingHistoryError
	if !errors.As(rr.Err, &m) || m.Ref != "experiments/x" || m.Target != run || m.Missing != events[1] {
		t.Fatalf("experiments/x: %v; want the missing history error naming the ref", rr.Err)
	}
	// The push's report names the ref before the message.
	msg := rr.Err.Error()
	for _, want := range []string{run.String(), events[1].String(), "tine unpack"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not name %q", msg, want)
		}
	}
	var ce *remote.ConflictError
	if rr := res.Refs[1]; rr.Updated || !errors.As(rr.Err, &ce) || ce.Actual != base {
		t.Fatalf("stale heads/main: %+v; want the conflict naming %s", rr, base)
	}
	got, err := tr.ListRefs(ctx)
	if err != nil || len(got) != 1 || got[0].ID != base {
		t.Fatalf("refs after the push: %v %v", got, err)
	}
}

// TestFilePushToShallowRemote: a path remote that is a shallow clone
// stores a run whose oldest event lies beyond its recorded boundary. A
// new ref naming that run is created: the boundary's absence is recorded,
// as a pack install accepts links to it, so it is not missing history.
// An event absent and not recorded is still refused.
func TestFilePushToShallowRemote(t *testing.T) {
	ctx := context.Background()
	local := remotetest.NewRepo(t, objects.SHA256)
	events := local.Chain("e", 3, objects.OID{})
	run := local.Run(events)
	lostEvents := local.Chain("l", 3, objects.OID{})
	lost := local.Run(lostEvents)
	dst := remotetest.NewRepo(t, objects.SHA256)
	copyInto(t, local, dst, map[objects.OID]bool{events[0]: true, lostEvents[0]: true}, run, lost)
	if err := dst.R.Refs().UpdateShallow(ctx, func([]objects.OID) ([]objects.OID, error) {
		return []objects.OID{events[0]}, nil
	}); err != nil {
		t.Fatal(err)
	}
	tr, err := remote.Open(ctx, dst.R.Root(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Push(ctx, remote.PushRequest{Updates: []remote.RefUpdate{
		{Name: "heads/main", New: run},
		{Name: "heads/lost", New: lost},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rr := res.Refs[0]; !rr.Updated || rr.Err != nil {
		t.Fatalf("heads/main on the shallow remote: %+v", rr)
	}
	if rr := res.Refs[1]; rr.Updated || !errors.Is(rr.Err, remote.ErrMissingHistory) {
		t.Fatalf("heads/lost, %s neither stored nor shallow: %+v", lostEvents[0], rr)
	}
}

// TestFilePushWalksPastInstalled: what a push installs is known stored,
// but the history it links to that the remote already had is still
// walked. The remote holds two events of a run, the first without its
// output blob; the push sends only a third event and the new run (the
// walk of what to send stops at the events the remote has), and the ref
// is refused for the blob behind them.
func TestFilePushWalksPastInstalled(t *testing.T) {
	ctx := context.Background()
	local := remotetest.NewRepo(t, objects.BLAKE3)
	events := local.Chain("e", 2, objects.OID{})
	first, err := local.R.Objects().Get(ctx, events[0])
	if err != nil {
		t.Fatal(err)
	}
	links, err := objects.Links(first)
	if err != nil || len(links) != 1 || links[0].Type != objects.TypeBlob {
		t.Fatalf("links of %s: %v %v", events[0], links, err)
	}
	dst := remotetest.NewRepo(t, objects.BLAKE3)
	copyInto(t, local, dst, map[objects.OID]bool{links[0]: true}, events...)
	events = append(events, local.Event("e 2", events[1]))
	run := local.Run(events)
	set := local.Closure(func(ctx context.Context, id objects.OID) (bool, error) {
		return dst.R.Objects().Has(ctx, id)
	}, remote.NoDepth, run)
	if len(set.IDs) != 3 {
		t.Fatalf("the push would send %d objects, want the event, its blob and the run", len(set.IDs))
	}
	tr, err := remote.Open(ctx, dst.R.Root(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Push(ctx, remote.PushRequest{Source: local.R.Objects(), Set: set, Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
	if err != nil {
		t.Fatal(err)
	}
	var m *remote.MissingHistoryError
	if rr := res.Refs[0]; rr.Updated || !errors.As(rr.Err, &m) || m.Missing != links[0] {
		t.Fatalf("heads/main over a lost blob %s: %+v", links[0], rr)
	}
}
