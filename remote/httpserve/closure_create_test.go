package httpserve_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

// TestCreatedRefHoldsExistingRefs: creating a ref walks only what the
// tenant's refs do not already name. The probe is heads/main, set on the
// server's side to a run of 70 events whose event 10 is not stored (a ref
// is trusted: it passed the check when it moved): a walk of that history
// would answer 404. A second name for the run and a fork of its first 66
// events are created (200) without that walk; a new run of 66 events with
// one missing is still refused (404). Before, every creation walked its
// run's whole history.
func TestCreatedRefHoldsExistingRefs(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	tenant, _, err := plumbing.Init(filepath.Join(ts.root, "tenants", "acme"), objects.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	a := tenant.Algo()
	chain := func(label string, n, skip int) ([]objects.OID, []*objects.Object) {
		var ids []objects.OID
		var objs []*objects.Object
		for i := range n {
			blob := objects.NewBlob(a, fmt.Appendf(nil, "%s %d", label, i))
			parents := oidList(ids[max(i-1, 0):i])
			ev := jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"model","label":"%s-%d","output_blob":%q,"parent_ids":%s}`, label, i, blob.ID, parents))
			ids = append(ids, ev.ID)
			objs = append(objs, blob)
			if i != skip {
				objs = append(objs, ev)
			}
		}
		return ids, objs
	}
	run := func(evs []objects.OID) *objects.Object {
		return jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
			oidList(evs), oidList(evs[:1]), oidList(evs[len(evs)-1:])))
	}
	main, objs := chain("m", 70, 10)
	mainRun, fork := run(main), run(main[:66])
	other, otherObjs := chain("o", 66, 30)
	lost := run(other)
	if err := objects.PutAll(ctx, tenant.Objects(), append(append(objs, otherObjs...), mainRun, fork, lost)); err != nil {
		t.Fatal(err)
	}
	if err := tenant.Refs().Update(ctx, "heads/main", mainRun.ID, objects.OID{}, "test"); err != nil {
		t.Fatal(err)
	}
	if err := tenant.Close(); err != nil {
		t.Fatal(err)
	}
	c := ts.client(t, httpclient.Options{})
	for _, tc := range []struct {
		ref    string
		target objects.OID
		ok     bool
	}{
		{"heads/again", mainRun.ID, true},
		{"experiments/fork", fork.ID, true},
		{"experiments/lost", lost.ID, false},
	} {
		ok, err := c.UpdateRef(ctx, tc.ref, objects.OID{}, tc.target)
		if tc.ok && (err != nil || !ok) {
			t.Errorf("create %s: %v %v; want 200", tc.ref, ok, err)
		}
		if !tc.ok && (ok || err == nil) {
			t.Errorf("create %s, whose event %s is not stored: %v %v; want 404", tc.ref, other[30], ok, err)
		}
	}
}
