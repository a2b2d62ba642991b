package httpclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/remotetest"
	"github.com/tinehq/tine/remote/wire"
)

// TestFetchRefusesUnaskedObjects answers a fetch of a run with what a
// real server sends for it (the run, its events and blobs, its evaluation,
// a note on one of its events) plus well-formed objects nobody asked for,
// each link-closed so that nothing but the fetch's scope can tell: a
// blob, another run with its history, a note on that run, a note on a
// blob of the wanted run (notes of runs and events travel, not of blobs)
// and a note naming no target. Each reply is refused naming an object
// nobody asked for, in tine's binary frame and in TINEPACK3 alike, and
// the repository stores nothing, not even a shallow entry; then the real
// reply installs.
func TestFetchRefusesUnaskedObjects(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	local := remotetest.NewRepo(t, a)
	ev := local.Chain("e", 3, objects.OID{})
	run := local.Run(ev)
	local.Evaluate(run, 0.9)
	local.Annotate(ev[1], objects.OID{}, "waived")
	get := func(ids ...objects.OID) []*objects.Object {
		var out []*objects.Object
		for _, id := range ids {
			o, err := local.R.Objects().Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	asked := get(local.Closure(nil, remote.NoDepth, run).IDs...)
	blob := local.Blob("nobody asked for this")
	other := local.Run(local.Chain("x", 2, objects.OID{}))
	otherHistory := local.Closure(nil, remote.NoDepth, other).IDs
	onOther := local.Annotate(other, objects.OID{}, "elsewhere")
	links, err := objects.Links(get(ev[0])[0])
	if err != nil {
		t.Fatal(err)
	}
	var evBlob objects.OID
	for _, l := range links {
		if l.Type == objects.TypeBlob {
			evBlob = l
		}
	}
	onBlob := local.Annotate(evBlob, objects.OID{}, "a note on a blob")
	untargeted := local.Annotate(objects.OID{}, objects.OID{}, "about nothing")

	for _, c := range []struct {
		name  string
		extra []objects.OID
		tine  bool
	}{
		{"a blob", []objects.OID{blob}, true},
		{"another run with its history", otherHistory, true},
		{"a note on another run", append([]objects.OID{onOther}, otherHistory...), true},
		{"a note on a blob of the run", []objects.OID{onBlob}, true},
		{"a note naming no target", []objects.OID{untargeted}, true},
		{"another run with its history, TINEPACK3", otherHistory, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs := append(append([]*objects.Object{}, asked...), get(c.extra...)...)
			var reply []byte
			var err error
			contentType := wire.FrameContentType
			if c.tine {
				reply, _, err = wire.WriteFrame(objs, nil, objects.DefaultPackLimits, false)
			} else {
				reply, _, err = objects.WritePackLimits(objs, nil, objects.PackLevelFast, objects.DefaultPackLimits)
				contentType = wire.PackContentType
			}
			if err != nil {
				t.Fatal(err)
			}
			s := newServer(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: a, NoTineFrame: !c.tine})
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasSuffix(r.URL.Path, "/fetch") {
					s.ServeHTTP(w, r)
					return
				}
				w.Header().Set("Content-Type", contentType)
				w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
				w.Write(reply)
			}))
			defer hs.Close()
			clone := newRepoOf(t, a)
			sink, err := remote.NewRepoSink(clone)
			if err != nil {
				t.Fatal(err)
			}
			_, err = openRemote(t, hs.URL).Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
			if !errors.Is(err, remote.ErrNotAsked) || !strings.Contains(err.Error(), "which the fetch did not ask for") {
				t.Fatalf("fetch = %v, want %v", err, remote.ErrNotAsked)
			}
			named := false
			for _, id := range c.extra {
				named = named || strings.Contains(err.Error(), "sent "+id.String())
			}
			if !named {
				t.Fatalf("the refusal names no object nobody asked for: %v", err)
			}
			if n := countStored(t, clone); n != 0 {
				t.Fatalf("the refused reply left %d objects", n)
			}
			if sh, err := clone.Refs().ReadShallow(); err != nil || len(sh) != 0 {
				t.Fatalf("the refused reply left shallow entries %v, %v", sh, err)
			}
		})
	}
	hs, _ := serveTraced(t, newServer(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: a}), a)
	tr := openRemote(t, hs.URL)
	remotetest.MustMove(t, remotetest.Push(t, tr, local, []remote.RefUpdate{{Name: "heads/main", New: run}}, run))
	clone := newRepoOf(t, a)
	if res := fetchInto(t, tr, clone, run, remote.NoDepth); res.Objects != len(asked) {
		t.Fatalf("the real reply: %d objects, want %d", res.Objects, len(asked))
	}
	fsckClean(t, clone)
}
