package remote_test

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// BenchmarkFilePush10kEvents pushes a 10,000-event run (20,001 objects)
// to an empty path remote through the transport and the RepoSink.
func BenchmarkFilePush10kEvents(b *testing.B) {
	local := remotetest.NewRepo(b, objects.BLAKE3)
	run := local.Run(local.Chain("e", 10000, objects.OID{}))
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		r, _, err := plumbing.Init(dir, objects.BLAKE3)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		b.StartTimer()
		tr, err := remote.Open(context.Background(), dir, remote.Options{})
		if err != nil {
			b.Fatal(err)
		}
		set := local.Closure(nil, remote.NoDepth, run)
		if _, err := tr.Push(context.Background(), remote.PushRequest{Source: local.R.Objects(), Set: set,
			Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}}); err != nil {
			b.Fatal(err)
		}
		tr.Close()
	}
}

// BenchmarkFileFetch10kEvents fetches a 10,000-event run (20,001 objects)
// from a path remote into an empty repository.
func BenchmarkFileFetch10kEvents(b *testing.B) {
	hub := remotetest.NewRepo(b, objects.BLAKE3)
	run := hub.Run(hub.Chain("e", 10000, objects.OID{}))
	hub.SetRef("heads/main", run)
	for b.Loop() {
		b.StopTimer()
		local := remotetest.NewRepo(b, objects.BLAKE3)
		b.StartTimer()
		tr, err := remote.Open(context.Background(), hub.R.Root(), remote.Options{})
		if err != nil {
			b.Fatal(err)
		}
		remotetest.Fetch(b, tr, local, remote.NoDepth, run)
		tr.Close()
	}
}

// BenchmarkHistoryCheck4kEvents is the history check a ref update runs
// (tine serve, a push to a path remote) against a 4,000-event run
// heads/main names (8,001 objects), alone, with nothing read from memory:
// creating a ref to a run no ref holds (its whole history walked; here
// the run heads/main names checked as if heads/main did not exist),
// creating a second name for it (nothing read), creating a fork of its
// first 3,000 events (heads/main's run read instead), and appending one
// event to heads/main (the new event walked).
func BenchmarkHistoryCheck4kEvents(b *testing.B) {
	ctx := context.Background()
	r := remotetest.NewRepo(b, objects.BLAKE3)
	events := r.Chain("e", 4000, objects.OID{})
	run := r.Run(events)
	r.SetRef("heads/main", run)
	fork := r.Run(events[:3000])
	next := r.Run(append(events[:4000:4000], r.Event("next", events[3999])))
	get := func(id objects.OID) *objects.Object {
		o, err := r.R.Objects().Get(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		return o
	}
	for _, bc := range []struct {
		name   string
		refs   bool
		old    objects.OID
		target *objects.Object
	}{
		{"create-unheld", false, objects.OID{}, get(run)},
		{"create-second-name", true, objects.OID{}, get(run)},
		{"create-fork", true, objects.OID{}, get(fork)},
		{"append", true, run, get(next)},
	} {
		c := remote.HistoryCheck{Objects: r.R.Objects()}
		if bc.refs {
			c.Refs = r.R.Refs()
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.Check(ctx, "experiments/x", bc.old, bc.target); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScopeAdmit10kEvents is a fetch's scope check alone over the
// reply of a 10,000-event run (20,001 objects), its links parsed
// beforehand as the transport's LinkMemo has them when the check runs.
func BenchmarkScopeAdmit10kEvents(b *testing.B) {
	ctx := context.Background()
	hub := remotetest.NewRepo(b, objects.BLAKE3)
	run := hub.Run(hub.Chain("e", 10000, objects.OID{}))
	set := hub.Closure(nil, remote.NoDepth, run)
	objs := make([]*objects.Object, 0, len(set.IDs))
	memo := remote.LinkMemo{}
	for _, id := range set.IDs {
		o, err := set.Object(ctx, hub.R.Objects(), id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := memo.Links(o); err != nil {
			b.Fatal(err)
		}
		objs = append(objs, o)
	}
	for b.Loop() {
		if err := remote.NewScope([]objects.OID{run}, nil).Admit(ctx, objs, memo); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransferClosure10kEvents is the walk alone over a 10,000-event
// run with a note on every 100th event, for a receiver holding nothing (a
// clone: 20,101 objects) and for one holding all of it (a push or fetch
// of a run the other side has: the run walked through, the notes of its
// events looked up, nothing sent).
func BenchmarkTransferClosure10kEvents(b *testing.B) {
	ctx := context.Background()
	hub := remotetest.NewRepo(b, objects.BLAKE3)
	events := hub.Chain("e", 10000, objects.OID{})
	run := hub.Run(events)
	for i := 0; i < len(events); i += 100 {
		hub.Annotate(events[i], objects.OID{}, "note")
	}
	src, err := plumbing.RepoTransferSource(ctx, hub.R)
	if err != nil {
		b.Fatal(err)
	}
	all := hub.Closure(nil, remote.NoDepth, run)
	held := make(map[objects.OID]bool, len(all.IDs))
	for _, id := range all.IDs {
		held[id] = true
	}
	for _, c := range []struct {
		name string
		has  func(context.Context, objects.OID) (bool, error)
		want int
	}{
		{"empty receiver", nil, len(all.IDs)},
		{"receiver holds it", func(_ context.Context, id objects.OID) (bool, error) { return held[id], nil }, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: []objects.OID{run}, Depth: plumbing.NoDepth, Has: c.has})
				if err != nil || len(set.IDs) != c.want {
					b.Fatalf("%d ids, %v; want %d", len(set.IDs), err, c.want)
				}
			}
		})
	}
}
