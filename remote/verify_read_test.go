package remote_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// corrupt overwrites id's loose file in r with the bytes of other's, so the
// file no longer hashes to its name.
func corrupt(t *testing.T, r *remotetest.Repo, id, other objects.OID) {
	t.Helper()
	p, err := r.R.Loose().Path(id)
	if err != nil {
		t.Fatal(err)
	}
	q, err := r.R.Loose().Path(other)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(q)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// blobOf returns an event's output blob.
func blobOf(t *testing.T, r *remotetest.Repo, event objects.OID) objects.OID {
	t.Helper()
	o, err := r.R.Objects().Get(context.Background(), event)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := o.Value.Get("output_blob")
	id, err := objects.ParseOIDFor(event.Algo, v.Str)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestFileFetchRefusesCorruptSource: the file transport hands its receiver
// objects without hashing them again (ReadSink.InstallRead), relying on
// the source store's read; a source object whose bytes do not hash to its
// name must still stop the fetch before the receiver stores it.
func TestFileFetchRefusesCorruptSource(t *testing.T) {
	src := remotetest.NewRepo(t, objects.BLAKE3)
	events := src.Chain("e", 4, objects.OID{})
	run := src.Run(events)
	src.SetRef("heads/main", run)
	corrupt(t, src, events[1], events[2])

	dst := remotetest.NewRepo(t, objects.BLAKE3)
	tr, err := remote.Open(context.Background(), src.R.Root(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	sink, err := remote.NewRepoSink(dst.R)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Fetch(context.Background(), remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
	if err == nil || !strings.Contains(err.Error(), events[1].String()) {
		t.Fatalf("fetch of a corrupt source: err = %v, want a refusal naming %s", err, events[1])
	}
	for _, id := range []objects.OID{events[1], events[2], run} {
		if dst.Has(id) {
			t.Fatalf("receiver stored %s although the fetch was refused", id)
		}
	}
}

// TestFilePushVerifiedRefusesCorruptSource: a push marked Verified reads
// each blob through the source store (the walk does not keep blobs); a
// blob damaged after the walk must stop the push, and no ref may move.
func TestFilePushVerifiedRefusesCorruptSource(t *testing.T) {
	src := remotetest.NewRepo(t, objects.BLAKE3)
	events := src.Chain("e", 4, objects.OID{})
	run := src.Run(events)
	set := src.Closure(nil, remote.NoDepth, run)
	bad, good := blobOf(t, src, events[1]), blobOf(t, src, events[2])
	corrupt(t, src, bad, good)

	dst := remotetest.NewRepo(t, objects.BLAKE3)
	tr, err := remote.Open(context.Background(), dst.R.Root(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	_, err = tr.Push(context.Background(), remote.PushRequest{Source: src.R.Objects(), Set: set, Verified: true,
		Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
	if err == nil || !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("push of a corrupt source: err = %v, want a refusal naming %s", err, bad)
	}
	if dst.Has(bad) || dst.Has(run) {
		t.Fatal("remote stored objects of a refused push")
	}
	if _, err := dst.R.Refs().Read(context.Background(), "heads/main"); err == nil {
		t.Fatal("remote heads/main moved although the push was refused")
	}
}
