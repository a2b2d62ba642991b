package httpserve_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

// TestFetchAndNegotiate checks the fetch walk over real HTTP: the whole
// closure, a depth cut with its shallow list, haves subtracted literally,
// the type filter keeping direct links, unknown wants skipped, and
// negotiate answering the same set sorted.
func TestFetchAndNegotiate(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 4)
	c := ts.client(t, httpclient.Options{})
	if _, err := c.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	fetch := func(fr httpclient.FetchRequest) *objects.PackFrame {
		t.Helper()
		frame, omitted, err := c.Fetch(ctx, fr)
		if err != nil {
			t.Fatal(err)
		}
		if omitted != 0 {
			t.Errorf("associations omitted = %d", omitted)
		}
		pf, err := objects.InspectPack(frame, objects.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		return pf
	}
	all := fetch(httpclient.FetchRequest{Wants: []objects.OID{src.run}, Depth: -1})
	if len(all.Objects) != 9 || len(all.Shallow) != 0 {
		t.Fatalf("full fetch: %d objects, %d shallow, want 9 and 0", len(all.Objects), len(all.Shallow))
	}
	// Depth 1: the run, its tip and their blobs; the other events are the
	// boundary (the run lists them).
	d1 := fetch(httpclient.FetchRequest{Wants: []objects.OID{src.run}, Depth: 1})
	if got := d1.ObjectIDs(); len(got) != 3 || !slices.Contains(got, src.events[3]) {
		t.Fatalf("depth 1 sent %v", got)
	}
	if !slices.Equal(sortedIDs(d1.Shallow), sortedIDs(src.events[:3])) {
		t.Errorf("depth 1 shallow %v, want %v", d1.Shallow, src.events[:3])
	}
	// Haves are subtracted as listed, not by reachability: naming the run
	// leaves out the run only.
	h := fetch(httpclient.FetchRequest{Wants: []objects.OID{src.run}, Haves: []objects.OID{src.run}, Depth: -1})
	if len(h.Objects) != 8 || slices.Contains(h.ObjectIDs(), src.run) {
		t.Errorf("haves: %d objects", len(h.Objects))
	}
	// The type filter keeps runs and their direct links in the set.
	f := fetch(httpclient.FetchRequest{Wants: []objects.OID{src.run}, Depth: -1, Types: []objects.Type{objects.TypeRun}})
	if len(f.Objects) != 5 {
		t.Errorf("run filter sent %d objects, want the run and its 4 events", len(f.Objects))
	}
	// Unknown wants are skipped: an empty pack, still 200.
	other := newSource(t, objects.SHA256, "z", 1)
	if e := fetch(httpclient.FetchRequest{Wants: []objects.OID{other.run}, Depth: -1}); len(e.Objects) != 0 {
		t.Errorf("unknown want sent %d objects", len(e.Objects))
	}
	status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/negotiate", "", "application/json",
		[]byte(`{"wants":["`+src.run.String()+`"],"haves":["`+src.run.String()+`"],"depth":null}`))
	var neg struct{ Missing []string }
	if status != 200 || json.Unmarshal([]byte(body), &neg) != nil || len(neg.Missing) != 8 || !slices.IsSorted(neg.Missing) {
		t.Errorf("negotiate = %d %s", status, body)
	}
	for _, bad := range []string{`{"depth":-1}`, `{"depth":true}`, `{"depth":1.5}`, `{"wants":["nope"]}`, `{"object_types":["tree"]}`, `{"wants":{}}`} {
		if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/fetch", "", "application/json", []byte(bad)); status != 400 {
			t.Errorf("fetch %s = %d, want 400", bad, status)
		}
	}
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/negotiate", "", "application/json", []byte(`{"object_types":[]}`)); status != 400 {
		t.Errorf("negotiate with object_types = %d, want 400", status)
	}
	if !strings.HasPrefix(all.ID, "sha256:") {
		t.Errorf("pack id %s", all.ID)
	}
}

func sortedIDs(ids []objects.OID) []objects.OID {
	out := slices.Clone(ids)
	slices.SortFunc(out, objects.OID.Compare)
	return out
}

// TestRefUpdateRefreshesCatalog: after a push (an upload, then a ref
// moved), the tenant's catalog is already up to date, so the next fetch's
// walk reads it instead of rebuilding it from the store.
func TestRefUpdateRefreshesCatalog(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "catalog", 20)
	c := ts.client(t, httpclient.Options{})
	if _, err := c.Upload(ctx, src.frame(t, src.run)); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run); err != nil || !ok {
		t.Fatalf("ref update: %v %v", ok, err)
	}
	r, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, rep, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Action != index.ActionFresh || rep.Runs != 1 || rep.Events != 20 {
		t.Errorf("catalog after the push: %+v, want fresh with 1 run and 20 events", rep)
	}
}
