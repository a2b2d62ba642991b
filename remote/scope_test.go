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

// TestScopeAdmits walks a Scope through the replies an honest server
// sends and the ones it must refuse: a history in two replies (the
// second holds what the first's boundary named, with a note on an old
// event), notes of a run the receiver holds and of one of its events
// (reached only by reading the held run), and, refused, a note on an
// event of a run nobody asked for, held or not.
func TestScopeAdmits(t *testing.T) {
	ctx := context.Background()
	src := remotetest.NewRepo(t, objects.BLAKE3)
	ev := src.Chain("e", 4, objects.OID{})
	run := src.Run(ev)
	note := src.Annotate(ev[0], objects.OID{}, "old step")
	get := func(ids ...objects.OID) []*objects.Object {
		var out []*objects.Object
		for _, id := range ids {
			o, err := src.R.Objects().Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	blobOf := func(id objects.OID) objects.OID {
		links, err := objects.Links(get(id)[0])
		if err != nil {
			t.Fatal(err)
		}
		return links[len(links)-1]
	}

	// Two replies: the run and its newer half, then the older half.
	s := remote.NewScope([]objects.OID{run}, nil)
	if err := s.Admit(ctx, get(run, ev[2], blobOf(ev[2]), ev[3], blobOf(ev[3])), remote.LinkMemo{}); err != nil {
		t.Fatalf("first reply: %v", err)
	}
	if err := s.Admit(ctx, get(ev[0], blobOf(ev[0]), ev[1], blobOf(ev[1]), note), remote.LinkMemo{}); err != nil {
		t.Fatalf("second reply: %v", err)
	}

	// A receiver holding the run: new notes of the run and of an event.
	held := remotetest.NewRepo(t, objects.BLAKE3)
	remotetest.Fetch(t, openPath(t, src), held, remote.NoDepth, run)
	onRun := src.Annotate(run, objects.OID{}, "later")
	onEvent := src.Annotate(ev[2], objects.OID{}, "later, on a step")
	if err := remote.NewScope([]objects.OID{run}, held.R.Objects()).Admit(ctx, get(onRun, onEvent), remote.LinkMemo{}); err != nil {
		t.Fatalf("new notes of a held run: %v", err)
	}
	err := remote.NewScope([]objects.OID{run}, nil).Admit(ctx, get(onRun, onEvent), remote.LinkMemo{})
	if !errors.Is(err, remote.ErrNotAsked) {
		t.Fatalf("a note on an event of a run the scope cannot read: %v, want %v", err, remote.ErrNotAsked)
	}

	// Notes on an event of another run, which the receiver holds or not.
	oev := src.Chain("x", 1, objects.OID{})
	other := src.Run(oev)
	remotetest.Fetch(t, openPath(t, src), held, remote.NoDepth, other)
	onOther := src.Annotate(oev[0], objects.OID{}, "elsewhere")
	for _, local := range []objects.Getter{nil, held.R.Objects()} {
		err := remote.NewScope([]objects.OID{run}, local).Admit(ctx, get(onOther, onEvent), remote.LinkMemo{})
		if !errors.Is(err, remote.ErrNotAsked) || !strings.Contains(err.Error(), "sent "+onOther.String()) {
			t.Fatalf("a note on another run's event: %v, want %v naming %s", err, remote.ErrNotAsked, onOther)
		}
		if local != nil && strings.Contains(err.Error(), "more objects") {
			t.Fatalf("reading the held run admits %s, yet: %v", onEvent, err)
		}
	}
}

// openPath opens r as a path remote.
func openPath(t *testing.T, r *remotetest.Repo) remote.Transport {
	t.Helper()
	return remotetest.Open(t, remotetest.Remote{URL: r.R.Root()})
}
