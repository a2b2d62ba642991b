package remotes

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	_ "github.com/tinehq/tine/remote/httpclient" // registers http(s)://
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/remotetest"
	"github.com/tinehq/tine/remote/wire"
)

// TestFetchRefusesUnaskedObjectsMovesNoRef: a server whose fetch reply
// carries, beside the new run, an object nobody asked for fails tine
// fetch naming it: nothing of the reply is stored and the tracking ref
// stays where the last fetch left it. The next honest reply moves it.
func TestFetchRefusesUnaskedObjectsMovesNoRef(t *testing.T) {
	ctx := context.Background()
	const token = "0123456789abcdef-test-token"
	a := objects.BLAKE3
	s, err := httpserve.New(httpserve.Config{Root: t.TempDir(), Tenant: "acme", Token: []byte(token),
		Role: httpserve.RoleWriter, ObjectFormat: a, NoTineFrame: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	stray := objects.NewBlob(a, []byte("nobody asked for this"))
	var hostile atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostile.Load() || !strings.HasSuffix(r.URL.Path, "/fetch") {
			s.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		pf, err := objects.InspectPackLimits(rec.Body.Bytes(), a, objects.DefaultPackLimits)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		reply, _, err := objects.WritePackLimits(append(pf.Objects, stray), pf.Shallow, objects.PackLevelFast, objects.DefaultPackLimits)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", wire.PackContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
		w.Write(reply)
	}))
	defer hs.Close()
	env := Env{Getenv: func(k string) string {
		if k == "TINE_TEST_TOKEN" {
			return token
		}
		return ""
	}}
	origin := Remote{Name: "origin", URL: hs.URL + "/v1/tenants/acme", TokenEnv: "TINE_TEST_TOKEN"}

	alice := remotetest.NewRepo(t, a)
	events := alice.Chain("e", 3, objects.OID{})
	run1 := alice.Run(events)
	alice.SetRef("heads/main", run1)
	if _, err := Add(alice.R, origin); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, alice.R, PushOptions{Env: env}); err != nil {
		t.Fatal(err)
	}
	bob := remotetest.NewRepo(t, a)
	if _, err := Add(bob.R, origin); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(ctx, bob.R, FetchOptions{Depth: remote.NoDepth, Env: env}); err != nil {
		t.Fatal(err)
	}
	run2 := alice.Run(append(events, alice.Event("more", events[2])))
	alice.SetRef("heads/main", run2)
	if _, err := Push(ctx, alice.R, PushOptions{Env: env}); err != nil {
		t.Fatal(err)
	}

	hostile.Store(true)
	_, err = Fetch(ctx, bob.R, FetchOptions{Depth: remote.NoDepth, Env: env})
	if !errors.Is(err, remote.ErrNotAsked) || !strings.Contains(err.Error(), "the server sent "+stray.ID.String()) {
		t.Fatalf("fetch of a reply with a stray blob: %v, want %v naming %s", err, remote.ErrNotAsked, stray.ID)
	}
	if bob.Has(stray.ID) || bob.Has(run2) {
		t.Fatalf("the refused reply stored objects: stray %v, run %v", bob.Has(stray.ID), bob.Has(run2))
	}
	if got, err := bob.R.Refs().Read(ctx, TrackingRef("origin", "heads/main")); err != nil || got != run1 {
		t.Fatalf("tracking ref after the refused fetch: %s, %v; want %s", got, err, run1)
	}

	hostile.Store(false)
	if _, err := Fetch(ctx, bob.R, FetchOptions{Depth: remote.NoDepth, Env: env}); err != nil {
		t.Fatal(err)
	}
	if got, err := bob.R.Refs().Read(ctx, TrackingRef("origin", "heads/main")); err != nil || got != run2 {
		t.Fatalf("tracking ref after the honest fetch: %s, %v; want %s", got, err, run2)
	}
	bob.Fsck()
}
