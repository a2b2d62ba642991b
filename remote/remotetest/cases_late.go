package remotetest

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
)

// testLateEventAssociations: an annotation made on an event after both
// sides hold its run travels on the next fetch, the receiver telling the
// remote what it holds as a fetch does (the run's closure as haves, the
// run and the associations it holds as closure roots), and only it
// travels.
func testLateEventAssociations(t *testing.T, newRemote Factory) {
	ctx := context.Background()
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	local := NewRepo(t, objects.BLAKE3)
	s := pushRecorded(t, tr, local, 4)
	other := NewRepo(t, objects.BLAKE3)
	Fetch(t, Open(t, rem), other, remote.NoDepth, s.run)

	late := local.Annotate(s.events[2], objects.OID{}, "flaky, noted later")
	Push(t, tr, local, nil, late)
	if other.Has(late) {
		t.Fatal("the note is there before the fetch")
	}
	held := other.Closure(nil, remote.NoDepth, s.run)
	req := remote.FetchRequest{Wants: []objects.OID{s.run}, Haves: held.IDs, HaveRoots: []objects.OID{s.run}, Depth: remote.NoDepth}
	for _, id := range held.IDs {
		if id.Type == objects.TypeAttestation || id.Type == objects.TypeAnnotation {
			req.HaveRoots = append(req.HaveRoots, id)
		}
	}
	sink, err := remote.NewRepoSink(other.R)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t, rem).Fetch(ctx, req, sink); err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if err := sink.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if !other.Has(late) || sink.Installed != 1 {
		t.Fatalf("the fetch stored %d objects, the note %s among them: %v; want the note alone", sink.Installed, late, other.Has(late))
	}
	other.Fsck()
}
