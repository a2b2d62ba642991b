package s3remote

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestConcurrentPushers: 16 pushers, each with its own client, push their
// own run to heads/main from the same expected value, for three rounds.
// Each round exactly one wins; every loser is a conflict naming the
// winner; no pushed object is lost (all are in the bucket, even the
// losers', whose packs were uploaded before their refs failed); the
// remote verifies clean and the winner's closure fetches link-closed.
func TestConcurrentPushers(t *testing.T) {
	const pushers, rounds = 16, 3
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	var all []objects.OID
	cur := objects.OID{}
	for round := 0; round < rounds; round++ {
		runs := make([]objects.OID, pushers)
		for i := range runs {
			runs[i] = putRun(t, r, fmt.Sprintf("round%d-pusher%d", round, i), 3)
		}
		results := make([]*remote.PushResult, pushers)
		errs := make([]error, pushers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range pushers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr := newRemote(t, srv, bucket, "race")
				<-start
				results[i], errs[i] = pushRun(ctx, tr, r, "heads/main", cur, runs[i])
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i := range pushers {
			if errs[i] != nil {
				t.Fatalf("round %d pusher %d: %v", round, i, errs[i])
			}
			if results[i].Refs[0].Updated {
				if winner >= 0 {
					t.Fatalf("round %d: pushers %d and %d both moved heads/main", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		for i := range pushers {
			if i == winner {
				continue
			}
			err := results[i].Refs[0].Err
			var ce *remote.ConflictError
			if !errorsAs(err, &ce) || ce.Expected != cur || ce.Actual != runs[winner] {
				t.Fatalf("round %d loser %d: %v; want a conflict expecting %s, finding %s", round, i, err, cur, runs[winner])
			}
		}
		cur = runs[winner]
		all = append(all, runs...)
	}

	check := newRemote(t, srv, bucket, "race")
	got, err := check.ListRefs(ctx)
	if err != nil || len(got) != 1 || got[0].ID != cur {
		t.Fatalf("refs after the race: %v, %v; want heads/main = %s", got, err, cur)
	}
	src, err := plumbing.RepoTransferSource(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: all, Depth: plumbing.NoDepth})
	if err != nil {
		t.Fatal(err)
	}
	if lost, err := check.Missing(ctx, set.IDs); err != nil || len(lost) != 0 {
		t.Fatalf("objects lost: %d of %d (%v)", len(lost), len(set.IDs), err)
	}
	vr, err := check.Verify(ctx)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if vr.Refs != 1 || vr.Objects != len(set.IDs) {
		t.Fatalf("verify %+v, want %d objects", vr, len(set.IDs))
	}
	sink := newMemSink(objects.BLAKE3)
	if _, err := check.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{cur}, Depth: remote.NoDepth}, sink); err != nil {
		t.Fatal(err)
	}
	if ok, _ := sink.Has(ctx, cur); !ok {
		t.Fatal("the winner's run did not arrive")
	}
}
