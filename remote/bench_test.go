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
