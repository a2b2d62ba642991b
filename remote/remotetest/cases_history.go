package remotetest

import (
	"context"
	"errors"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// testStoredHistory: the remote's repository stores runs whose history it
// lacks in part (written behind the transport, as another tool, a restored
// backup or a damaged disk leaves them): a new run with an event missing,
// and heads/main's run plus an event whose output blob is missing. A push
// naming them sends nothing (the remote has the runs), and neither ref may
// move: a ref would name a run no reader can read. Once the history is
// stored, the same update lands. Remotes without a repository of their
// own (S3) skip it: nothing on their side checks a ref.
func testStoredHistory(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	if rem.Dir == "" {
		t.Skip("no repository on the remote's side to write into, and no server that checks refs")
	}
	ctx := context.Background()
	tr := Open(t, rem)
	local := NewRepo(t, objects.BLAKE3)
	s := pushRecorded(t, tr, local, 3)

	lostEvents := local.Chain("lost", 3, objects.OID{})
	lost := local.Run(lostEvents)
	grown := append(append([]objects.OID(nil), s.events...), local.Event("grown", s.events[2]))
	grownRun := local.Run(grown)
	grownEvent, err := local.R.Objects().Get(ctx, grown[3])
	if err != nil {
		t.Fatal(err)
	}
	links, err := objects.Links(grownEvent)
	if err != nil || len(links) != 2 {
		t.Fatalf("links of %s: %v %v", grown[3], links, err)
	}
	grownBlob := links[0]
	if grownBlob.Type != objects.TypeBlob {
		grownBlob = links[1]
	}
	behind(t, rem.Dir, local, map[objects.OID]bool{lostEvents[1]: true, grownBlob: true}, lost, grownRun)

	for _, tc := range []struct {
		u       remote.RefUpdate
		missing objects.OID
	}{
		{remote.RefUpdate{Name: "heads/lost", New: lost}, lostEvents[1]},
		{remote.RefUpdate{Name: "heads/main", Old: s.run, New: grownRun}, grownBlob},
	} {
		res, err := tr.Push(ctx, remote.PushRequest{Updates: []remote.RefUpdate{tc.u}})
		if err != nil {
			t.Fatalf("push %s: %v", tc.u.Name, err)
		}
		if len(res.Refs) != 1 || res.Refs[0].Updated || !errors.Is(res.Refs[0].Err, remote.ErrNotFound) {
			t.Fatalf("%s to %s, whose history lacks %s: %+v; want not found", tc.u.Name, tc.u.New, tc.missing, res.Refs)
		}
	}
	if got := RefMap(t, tr); len(got) != 1 || got["heads/main"] != s.run {
		t.Fatalf("refs moved onto missing history: %v", got)
	}
	// With the history pushed, both updates land.
	MustMove(t, Push(t, tr, local, []remote.RefUpdate{
		{Name: "heads/lost", New: lost},
		{Name: "heads/main", Old: s.run, New: grownRun},
	}, lost, grownRun))
	checkRemote(t, rem, objects.BLAKE3)
}

// behind stores in the repository at dir the link closure of wants as
// local holds it, minus skip, with plain Puts that check no links.
func behind(t *testing.T, dir string, local *Repo, skip map[objects.OID]bool, wants ...objects.OID) {
	t.Helper()
	ctx := context.Background()
	r, err := plumbing.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	set := local.Closure(nil, remote.NoDepth, wants...)
	for _, id := range set.IDs {
		if skip[id] {
			continue
		}
		o, err := local.R.Objects().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Objects().Put(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}
