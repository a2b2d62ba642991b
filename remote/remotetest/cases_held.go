package remotetest

import (
	"context"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
)

// testHeld checks a remote.Holder (a transport without Prober): it names
// exactly the stored ones among pushed and unpushed associations, so a
// push does not send a run's evaluations again.
func testHeld(t *testing.T, newRemote Factory) {
	rem := newRemote(t, objects.BLAKE3)
	tr := Open(t, rem)
	h, ok := tr.(remote.Holder)
	if !ok {
		if _, probes := tr.(remote.Prober); !probes {
			t.Fatal("the transport can tell neither which objects the remote lacks nor which it holds")
		}
		t.Skip("a Prober: pushes ask it object by object")
	}
	local := NewRepo(t, objects.BLAKE3)
	s := pushRecorded(t, tr, local, 3)
	later := local.Evaluate(s.run, 0.95)
	laterNote := local.Annotate(s.run, s.note2, "third look")
	ask := []objects.OID{s.eval, later, s.note2, laterNote, s.eventNote, s.run}
	held, err := h.Held(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	want := []objects.OID{s.eval, s.note2, s.eventNote, s.run}
	slices.SortFunc(held, objects.OID.Compare)
	slices.SortFunc(want, objects.OID.Compare)
	if !slices.Equal(held, want) {
		t.Fatalf("held %v, want %v", held, want)
	}
	if held, err := h.Held(context.Background(), nil); err != nil || len(held) != 0 {
		t.Fatalf("held of nothing: %v, %v", held, err)
	}
}
