package httpserve_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

// TestRefUpdateRefusesMissingHistory writes runs straight into a tenant's
// repository, bypassing the pack install that checks links, each lacking
// part of its history: a run with an event missing (created, and appended
// onto a pushed run), and an appended event whose output blob is missing.
// A ref update naming any of them over HTTP is refused with 404 and the
// ref stays where it was; a complete run pushed after them still moves it.
// Before, the server checked only that the run itself was stored and
// moved the ref.
func TestRefUpdateRefusesMissingHistory(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var logged []string
	ts := startServer(t, httpserve.Config{Log: func(s string) { mu.Lock(); logged = append(logged, s); mu.Unlock() }})
	c := ts.client(t, httpclient.Options{})
	src := newSource(t, objects.SHA256, "a", 3)
	if _, err := c.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run); err != nil || !ok {
		t.Fatalf("create heads/main: %v %v", ok, err)
	}
	tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme", plumbing.DirName))
	if err != nil {
		t.Fatal(err)
	}
	defer tenant.Close()
	a := tenant.Algo()
	put := func(objs ...*objects.Object) {
		t.Helper()
		if err := objects.PutAll(ctx, tenant.Objects(), objs); err != nil {
			t.Fatal(err)
		}
	}
	event := func(label string, blob objects.OID, parents ...objects.OID) *objects.Object {
		return jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":%q,"output_blob":%q,"parent_ids":%s}`,
			label, blob.String(), oidList(parents)))
	}
	run := func(evs ...objects.OID) *objects.Object {
		return jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
			oidList(evs), oidList(evs[:1]), oidList(evs[len(evs)-1:])))
	}
	blob1, blob2 := objects.NewBlob(a, []byte("one")), objects.NewBlob(a, []byte("two"))
	e1 := event("b-1", blob1.ID)
	e2 := event("b-2", blob2.ID, e1.ID)
	// A new run whose second event was never stored.
	lost := run(e1.ID, e2.ID)
	put(blob1, blob2, e1, lost)
	// heads/main's run plus an event that was never stored.
	e4 := event("a-4", blob2.ID, src.events[2])
	short := run(append(src.events[:3:3], e4.ID)...)
	put(short)
	// heads/main's run plus a stored event whose output blob is not.
	blob5 := objects.NewBlob(a, []byte("five"))
	e5 := event("a-5", blob5.ID, src.events[2])
	noBlob := run(append(src.events[:3:3], e5.ID)...)
	put(e5, noBlob)

	for _, tc := range []struct {
		ref      string
		old, new objects.OID
		missing  objects.OID
	}{
		{"heads/lost", objects.OID{}, lost.ID, e2.ID},
		{"heads/main", src.run, short.ID, e4.ID},
		{"heads/main", src.run, noBlob.ID, blob5.ID},
	} {
		mu.Lock()
		logged = nil
		mu.Unlock()
		ok, err := c.UpdateRef(ctx, tc.ref, tc.old, tc.new)
		if ok || !errors.Is(err, httpclient.ErrNotFound) {
			t.Fatalf("%s to %s, missing %s: %v %v; want 404", tc.ref, tc.new, tc.missing, ok, err)
		}
		mu.Lock()
		if len(logged) != 1 || !strings.Contains(logged[0], tc.missing.String()) {
			t.Errorf("server log does not name the missing %s: %q", tc.missing, logged)
		}
		mu.Unlock()
	}
	refs, err := c.Refs(ctx)
	if err != nil || len(refs) != 1 || refs["heads/main"] != src.run {
		t.Fatalf("refs moved: %v %v", refs, err)
	}
	// Once the history is there (pushed as a pack), the same update lands.
	e2pack, _, err := objects.WritePack([]*objects.Object{e2}, []objects.OID{e1.ID, blob2.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Upload(ctx, e2pack); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/lost", objects.OID{}, lost.ID); err != nil || !ok {
		t.Fatalf("heads/lost with its history stored: %v %v", ok, err)
	}
	// A normal append pushed as a pack still moves heads/main.
	next, _ := src.addRun(t, "c", 2)
	if _, err := c.Upload(ctx, src.frame(t, next)); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", src.run, next); err != nil || !ok {
		t.Fatalf("complete run: %v %v", ok, err)
	}
}

// TestStaleRefUpdateSkipsWalk: a ref update whose expected_old the ref
// does not hold (absent on an existing ref, or another value) is a 409
// without walking the new value's history, which would cost the whole
// history for an update that cannot land. The probe is a new value whose
// history is incomplete: a walk would answer 404. Before, it did.
func TestStaleRefUpdateSkipsWalk(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	c := ts.client(t, httpclient.Options{})
	src := newSource(t, objects.SHA256, "a", 3)
	if _, err := c.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run); err != nil || !ok {
		t.Fatalf("create heads/main: %v %v", ok, err)
	}
	tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme", plumbing.DirName))
	if err != nil {
		t.Fatal(err)
	}
	defer tenant.Close()
	a := tenant.Algo()
	blob, e1, _, lost := twoEventRun(t, a, "one", "s")
	if err := objects.PutAll(ctx, tenant.Objects(), []*objects.Object{blob, e1, lost}); err != nil { // e2 never stored
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref string
		old objects.OID
	}{
		{"heads/main", objects.OID{}}, // expected absent, the ref exists
		{"heads/main", lost.ID},       // another value
		{"heads/none", src.run},       // a value, the ref is absent
	} {
		ok, err := c.UpdateRef(ctx, tc.ref, tc.old, lost.ID)
		if ok || err != nil {
			t.Errorf("%s from %v: %v %v; want 409 {updated:false}", tc.ref, tc.old, ok, err)
		}
	}
	// Expected right, the walk runs and finds e2 missing.
	if ok, err := c.UpdateRef(ctx, "heads/main", src.run, lost.ID); ok || !errors.Is(err, httpclient.ErrNotFound) {
		t.Fatalf("heads/main from its value to %s: %v %v; want 404", lost.ID, ok, err)
	}
	refs, err := c.Refs(ctx)
	if err != nil || len(refs) != 1 || refs["heads/main"] != src.run {
		t.Fatalf("refs moved: %v %v", refs, err)
	}
}

// TestNoOpRefUpdateSkipsWalk: an update to the value the ref already
// holds moves nothing and walks nothing. The probe is a ref set on the
// server's side to a run whose history is incomplete: a walk would answer
// 404. Before, the walk ran (the whole history, for a no-op).
func TestNoOpRefUpdateSkipsWalk(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	c := ts.client(t, httpclient.Options{})
	src := newSource(t, objects.SHA256, "a", 1)
	if _, err := c.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme", plumbing.DirName))
	if err != nil {
		t.Fatal(err)
	}
	defer tenant.Close()
	a := tenant.Algo()
	blob, e1, _, lost := twoEventRun(t, a, "one", "n")
	if err := objects.PutAll(ctx, tenant.Objects(), []*objects.Object{blob, e1, lost}); err != nil { // e2 never stored
		t.Fatal(err)
	}
	if err := tenant.Refs().Update(ctx, "heads/main", lost.ID, objects.OID{}, "test"); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", lost.ID, lost.ID); err != nil || !ok {
		t.Fatalf("heads/main from %s to itself: %v %v; want 200", lost.ID, ok, err)
	}
}

// twoEventRun builds, without storing them, a run of two events (p-1,
// then p-2 its child) sharing one output blob holding content.
func twoEventRun(t *testing.T, a objects.Algo, content, p string) (blob, e1, e2, run *objects.Object) {
	t.Helper()
	blob = objects.NewBlob(a, []byte(content))
	e1 = jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":"%s-1","output_blob":%q,"parent_ids":[]}`, p, blob.ID))
	e2 = jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":"%s-2","output_blob":%q,"parent_ids":%s}`,
		p, blob.ID, oidList([]objects.OID{e1.ID})))
	run = jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
		oidList([]objects.OID{e1.ID, e2.ID}), oidList([]objects.OID{e1.ID}), oidList([]objects.OID{e2.ID})))
	return blob, e1, e2, run
}
